// Package memory is memd's service: Recall ranks chunks of notes for a query
// and Chat answers from them. It speaks in notes, chunks, hits and answers and
// knows nothing of sockets or files on disk.
//
// Recall searches the vectors vector.Serving holds; everything else about
// vectors (formats, writing, re-embedding) lives in package vector.
//
// It imports pipeline, vector, inference and store, never api.
package memory
