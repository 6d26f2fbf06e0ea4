// Package memory is memd's service: Recall ranks chunks of notes for a query
// (BM25 with typo tolerance and fusion from package rank, vector search
// from package vector, an optional reranker, filters, one hit per note)
// and Chat answers from them (prompt assembly, sessions, citations). It
// also registers folders and forgets notes through the pipeline's Indexer.
// For editors it answers note names, tags, link resolution and backlinks
// from a graph of the notes' links it rebuilds when the store changes.
// It speaks in the root package memd's types and knows nothing of sockets.
//
// It imports the root package memd, rank, vector, pipeline, inference and
// store; nothing imports it but cmd/memd, which hands it to the server as
// its Service.
package memory
