// Package memory is memd's service: Recall ranks chunks of notes for a query
// and Chat answers from them. It speaks in notes, chunks, hits and answers and
// knows nothing of sockets or files on disk.
//
// It imports pipeline, inference and store, never api.
package memory
