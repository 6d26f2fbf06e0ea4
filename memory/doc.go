// Package memory is memd's service: Recall ranks chunks of notes for a query
// (BM25 over the store's postings, vector search, reciprocal rank fusion,
// an optional reranker, filters) and Chat answers from them (prompt
// assembly, sessions, citations). It also registers folders and forgets
// notes through the pipeline's Indexer, and keeps the in-memory vector
// index in step with the store (Vectors, the pipeline's VectorSink). It
// speaks in the root package memd's types and knows nothing of sockets.
//
// It imports the root package memd, pipeline, inference, store,
// store/lexical and memory/vector; nothing imports it but cmd/memd, which
// hands it to the server as its Service.
package memory
