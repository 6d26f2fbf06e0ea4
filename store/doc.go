// Package store keeps memd's state in one bbolt file: folders, notes, chunks,
// lexical postings with their statistics, vectors and the durable job queue.
//
// A note is replaced in one transaction, so a reader sees the old note or the
// new one, never half of each. Store imports no other memd package.
package store
