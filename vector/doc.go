// Package vector is everything memd does with embedding vectors, in one
// place; their persistence is the store's (store.Tx.PutVector,
// VectorState, SwitchVectors).
//
//   - document.go: how a chunk and a query read to the embedder
//     (DocumentText, QueryText), so the two sides agree.
//   - reembed.go: Writer, which the pipeline drives: it embeds a note's
//     chunks for its transaction, tells Serving after each commit, and
//     re-embeds every chunk when the embedder changes, switching only when
//     the new vectors are complete. This is the file for "when are vectors
//     rebuilt".
//   - serving.go: Serving, the in-memory index recall searches, loaded from
//     the store and kept in step with commits; while a new embedder
//     re-embeds, the previous vectors keep serving with the previous model.
//   - floor.go: the similarity a hit only the vector list found must
//     pass, calibrated per serving index, so a query about nothing in the
//     notes finds nothing with an embedder as without one.
//   - index.go, search.go, kernels.go: Index finds the nearest vectors to a
//     query: a scan of 1-bit sign codes picks candidates, which are
//     re-scored exactly with their int8 vectors. It is written here because
//     the pure-Go libraries (chromem-go, coder/hnsw, vek) scan float32 or
//     build graphs, and the SIMD ones need cgo; none scans int8 and bit
//     codes laid out flat as memd stores them.
//
// Both pipeline (through Writer) and memory (through Serving) import it;
// it imports store, inference and internal/pause and nothing else of
// memd, so no call goes from the pipeline up into the service.
package vector
