// Package rank is how memd orders chunks for a query, readable from this
// one folder:
//
//   - lexical/: the analyzer that turns text into index terms, the same at
//     index time (the pipeline counts a chunk's terms with it) and at
//     recall (ParseQuery), so the two always agree.
//   - posting.go: what the index holds per term and chunk (Posting), how
//     a run of postings is encoded, and the chunk lengths kept once per
//     range of chunk ids (Lengths); store/postings.go keeps the runs in
//     bbolt, one per term per range of chunk ids.
//   - bm25.go: BM25 over those postings (the file for "change how BM25
//     scores"), and how a query is analyzed.
//   - typo.go: typo tolerance: a query term the index does not know, or
//     knows rarely, matched to a known term within one or two edits
//     through a symmetric-delete table over the term dictionary (the
//     file says why that structure), weighted below the query's own
//     spelling.
//   - fusion.go: reciprocal rank fusion of ranked lists, and the one scale
//     every recall score is on. A recall fuses whatever lists it has: BM25
//     alone is a fusion of one list, so hits are built one way.
//   - sort.go: the top k of a scored list without a full sort.
//
// It imports rank/lexical and nothing else of memd; store and memory
// import it.
package rank
