// Package lexical owns the analysis that turns text into index terms: the
// same function runs over chunks at index time and over queries at recall,
// so the two always agree. Version names the analysis; a store built under a
// different Version must be re-indexed.
//
// The Porter2 stemmer is hand-written (stem.go) rather than the snowball
// library's, which converts every word to runes and allocates on each
// step: that cost 8–13% of indexing. A test holds the two equal word for
// word. Counter counts a chunk's terms by id for the same reason: a map of
// strings per chunk was another 8%. An Analyzer maps each word it has read
// to its term's id (words.go) in a direct-mapped cache of short words held
// in the entry, in front of an open-addressing table over one byte arena,
// so a common word costs a multiply and a load, not a string compare
// behind a pointer.
//
// It imports no memd package.
package lexical
