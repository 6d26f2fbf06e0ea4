// Package store keeps memd's state in one bbolt file: folders, notes, chunks,
// lexical postings with their statistics, vectors and the durable job queue.
//
// A note is replaced in one transaction, so a reader sees the old note or the
// new one, never half of each. Note and chunk records are a small binary
// form of their own (record.go), not JSON, because they are written for
// every file indexed and read for every recall hit. Store imports no other
// memd package.
package store
