// Command memd is the local memory daemon: it indexes the registered notes
// folders into one bbolt file and answers recall over a unix socket. main
// only wires: the work is in pipeline, memory and api.
//
// It owns flags and configuration, signals and the order of start-up and
// shutdown (the socket itself is server.Listen), and
// imports api, memory, pipeline, store and inference/runtime.
package main
