// Package api is the typed Go client of memd's HTTP API: Client calls the
// daemon over its unix socket, streams chat and index events (SSEReader),
// and returns every refusal as a *memd.Error. memctl, its MCP server and
// the tests use it.
//
// It imports only the root package memd, the vocabulary it shares with the
// server, so a client links none of the daemon; api/apitest holds an
// in-memory Service for tests of clients and of the server.
package api
