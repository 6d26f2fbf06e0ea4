// Package store keeps memd's state in one bbolt file: folders, notes, chunks,
// lexical postings with their statistics, vectors, the durable job queue,
// and per folder how many notes hold each block (to tell a template's
// blocks from a note's own text).
//
// A note is replaced in one transaction, so a reader sees the old note or the
// new one, never half of each. Note and chunk records are a small binary
// form of their own (record.go), not JSON, because they are written for
// every file indexed and read for every recall hit.
//
// A damaged file never takes the process down: Open checks the meta pages
// against the file's size before bbolt maps it, every transaction turns a
// fault or panic raised inside bbolt into a DamageError, and Check runs
// bbolt's full consistency check (in a process of its own). The registered
// folders are also kept in a file beside the store, so a new store rebuilt
// after MoveAside knows them. Compact gives free pages back to the disk.
// Store imports no other memd package.
package store
