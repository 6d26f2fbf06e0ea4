// Package server answers memd's HTTP API: HTTP/1.1 over a unix socket
// (Listen, Server) with JSON errors, limits on size and time (a deadline on
// every request body, admission control on recall), server-sent
// events, the websocket JSON-RPC, the OpenAI-compatible routes, and an
// optional loopback TCP listener with a bearer token. Only processes of
// the daemon's own user are answered on the socket.
//
// It answers from a Service declared here (cmd/memd hands it a
// *memory.Service) and imports only the root package memd, whose types
// are the wire; the typed client is package api.
package server
