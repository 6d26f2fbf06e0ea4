// Command memd is the local memory daemon: it indexes the registered notes
// folders into one bbolt file and answers recall and chat over a unix
// socket. main only wires: the work is in pipeline, memory, inference and
// server.
//
// It owns flags and configuration, loading the models, signals and the
// order of start-up and shutdown (the socket itself is server.Listen). Its
// subcommands are `memd runtime install|path` (the llama.cpp libraries)
// and `memd check` (the store and runtime checks memctl doctor asks for,
// made here so that memctl links neither), and `memd mcp` and `memd model
// pull`, the MCP server and model downloads that memctl execs so that its
// own binary, the one that answers recall, starts without their
// libraries. It imports the root package memd, server, memory, pipeline,
// store, inference, inference/llama, inference/runtime, inference/hub,
// mcpserver and internal/config.
package main
