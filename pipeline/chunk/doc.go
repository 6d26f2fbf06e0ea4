// Package chunk cuts a parsed note into chunks, the unit memd indexes and
// recalls. Heuristic is the chunker used when no model is loaded: it scores
// the break points between blocks (headings strongest, never inside a code
// block) and picks the set of breaks that best meets a token target. A
// Cutter cuts many notes in turn, keeping its working memory; a chunk's
// text is a span of the note's source wherever the source holds it as is.
//
// It imports no memd package except pipeline/parse and rank/lexical, whose
// table of scripts written without spaces the token estimate shares.
//
// Version names the heuristic's rules; a store made under another Version
// is re-indexed when memd starts.
package chunk
