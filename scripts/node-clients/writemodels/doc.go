// Command writemodels writes the generated models the Node client test
// serves: inference/testmodel's generator (so a client can check the text
// and its citation) and a small embedder. It prints the two paths, one a line.
package main
