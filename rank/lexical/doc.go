// Package lexical owns the analysis that turns text into index terms: the
// same function runs over chunks at index time and over queries at recall,
// so the two always agree. Version names the analysis; a store built under a
// different Version must be re-indexed.
//
// The Porter2 stemmer is hand-written (stem.go) rather than the snowball
// library's, which converts every word to runes and allocates on each
// step: that cost 8–13% of indexing. A test holds the two equal word for
// word. Counter counts a chunk's terms by id for the same reason: a map of
// strings per chunk was another 8%.
//
// It imports no memd package.
package lexical
