// Package clitext is what memd's command-line clients (memctl, and the
// clients memd runs itself, such as `memd mcp`) print and read the same
// way: the text of a status and of a chat's sources, sizes, and the paths
// a person types, made absolute as the daemon knows files. It imports the
// root package memd and the standard library only.
package clitext
