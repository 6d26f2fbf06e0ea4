// Package api is the typed Go client of memd's HTTP API: Client calls the
// daemon over its unix socket, streams chat and index events (SSEReader),
// and returns every refusal as a *memd.Error. memctl, its MCP server and
// the tests use it.
//
// It imports only the root package memd, the vocabulary it shares with the
// server, so a client links none of the daemon; api/apitest holds an
// in-memory Service for tests of clients and of the server.
//
// It speaks HTTP/1.1 itself (wire.go, chunked.go) rather than through
// net/http, because memctl starts once per command and net/http brought
// crypto/tls, x509, all of crypto and mime/multipart with it: memctl went
// from 220 packages to 153, 9.7 MB to 6.4 MB stripped, its package init
// from 1.37 to 0.73 ms (median of 41 `memctl --version`), and `memctl
// recall` p50 by 0.87-0.93 (BENCHMARKS.md, "memctl without net/http"). The
// client needs little of HTTP: one request per connection on a local
// socket (Connection: close: in a long-lived client's loop of recalls a
// new connection costs 25-30 µs a request, not worth a pool of idle ones
// and retries on stale ones), answers framed by Content-Length, chunked
// or the close, and no TLS, proxies, redirects or compression. Recall's
// request and answer are encoded and decoded by hand (recall_request.go,
// recall_answer.go): encoding/json's first use in a fresh process builds
// its reflection caches, and an answer of any other shape is left to it.
package api
