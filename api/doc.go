// Package api is memd's wire: HTTP/1.1 over a unix socket (Listen, Server)
// with JSON errors, limits on size and time, server-sent events, and the
// typed Go Client that memctl and tests use. Only processes of the daemon's
// own user are answered.
//
// It imports memory for the Service's types and nothing else of memd;
// api/apitest holds an in-memory Service for tests of clients.
package api
