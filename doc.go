// Package memd is the vocabulary memd's daemon and its clients share: what a
// recall asks and answers (RecallRequest, Filters, Hit, RecallResult), what a
// chat asks and streams (ChatRequest, ChatEvent, Source, ChatResult), folders,
// notes, index events, status, models, the errors clients tell apart with
// their wire codes, and the HTTP routes with their bodies; and the little
// of a note's link syntax the daemon and editors' clients must read alike
// (LinkSpans, Heading).
//
// Each type is defined once, here, with its Validate where a request can be
// refused before any work. The package imports nothing of memd, so the
// service (memory), the server (server), the client (api), memctl and the
// pipeline all depend on it and on nothing above it.
package memd
