// Package store keeps memd's state in one bbolt file: folders, notes, chunks,
// lexical postings with their statistics, vectors, the durable job queue,
// and per folder how many notes hold each block (to tell a template's
// blocks from a note's own text), in tiers whose counts add up, so that a
// commit writes the counts it changed, not the folder's (blocktiers.go).
//
// A note is replaced in one transaction, so a reader sees the old note or the
// new one, never half of each. Note and chunk records are a small binary
// form of their own (record.go), not JSON, because they are written for
// every file indexed and read for every recall hit.
//
// Rename detection finds notes by content hash in memory (hashindex.go),
// derived from the note records and learnt as transactions commit, not
// in a bucket of its own, whose random keys a bulk add rewrote on every
// commit.
//
// A damaged file never takes the process down: Open checks the meta pages
// against the file's size before bbolt maps it, every transaction turns a
// fault or panic raised inside bbolt into a DamageError, and Check runs
// bbolt's full consistency check (in a process of its own). The registered
// folders are also kept in a file beside the store, so a new store rebuilt
// after MoveAside knows them. Compact gives free pages back to the disk.
//
// A bulk add's commits are most of indexing's CPU, so the write path keeps
// what a commit would otherwise look up again: term ids in memory across
// transactions (termcache.go, learnt only once a transaction commits,
// dropped by ReleaseCaches when the daemon goes idle), a chunk's terms by
// their number in the analyzer's Vocabulary, which holds each term's
// string once for every chunk (one hash of a term's string a commit, not
// one an occurrence; none at all for a number whose mark already names
// its entry in the term cache of the same generation),
// counters changed once a commit, and one cursor per bucket a transaction
// for its lookups (bbolt's Get builds a cursor each call). A commit
// gathers its postings term by term and writes each chunk's term record
// from them, reading the terms in id order, so no record needs a sort of
// its own, and its posting blocks in key order, so they need no sort
// either; those arrays are kept with the term cache for the next commit
// of a burst, and so are the slabs its records are cut from (arena.go:
// bbolt holds a Put's value until the commit). Store imports no other
// memd package. bbolt is a copy with three changes for bulk commits
// (internal/bbolt/MEMD.md); the file format is bbolt's own.
package store
