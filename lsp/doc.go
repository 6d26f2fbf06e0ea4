// Package lsp is memd's Language Server: `memctl lsp` serves it on stdio to
// any editor, for the Markdown, Org and text notes in memd's folders. It
// answers from the daemon through the typed client (recall for workspace
// symbols and related notes; names, tags, links and backlinks for
// completion, hover, definition, references and link diagnostics) and
// holds no index of its own.
//
// JSON-RPC framing is github.com/sourcegraph/jsonrpc2, small and kept up;
// the LSP 3.17 structures it speaks are declared here (protocol.go): the Go
// LSP libraries on the module proxy stop at 3.16 and bring loggers and
// dozens of types memd never sends. It imports the api client and the
// wire types, never store, pipeline or the service.
package lsp
