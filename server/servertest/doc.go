// Package servertest serves a server.Service on a real unix socket for the
// tests of memd's clients (memctl, the MCP server), as net/http/httptest
// does for HTTP handlers.
package servertest
