// Package lexical owns the analysis that turns text into index terms: the
// same function runs over chunks at index time and over queries at recall,
// so the two always agree. Version names the analysis; a store built under a
// different Version must be re-indexed.
//
// It imports no memd package.
package lexical
