// Package api is memd's wire: HTTP/1.1 over a unix socket with JSON errors,
// server-sent events, and the typed Go client that memctl and tests use.
//
// It imports memory and nothing below it except for the types memory exposes.
package api
