// Package autostart connects memd's clients to the daemon, starting memd in
// the background (its own session, output to <data>/memd.log) when none
// answers on the socket, and finds the memd binary beside the running one
// or on PATH. memctl and the clients memd serves itself (`memd mcp`) use
// it. It imports api and nothing of the daemon.
package autostart
