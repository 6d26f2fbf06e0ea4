// Package llamatest opens the llama.cpp library for tests in other
// packages. It is apart from inference/testmodel so that llama's own tests,
// which use testmodel, do not import it through a cycle.
package llamatest
