// Package runtime finds and installs the llama.cpp shared libraries memd
// loads: a folder the user names (--lib-dir, MEMD_LLAMA_LIB) or a pinned
// @node-llama-cpp npm package fetched with `npm pack` into the user's cache
// folder. It only locates files; loading them is inference/llama's job, whose
// FindLibrary and AcceptedVersions it checks against; it imports no other
// memd package.
package runtime
