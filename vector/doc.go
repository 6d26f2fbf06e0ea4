// Package vector holds an embedder's chunk vectors in memory and finds the
// nearest ones to a query: a scan of 1-bit sign codes picks candidates, which
// are re-scored exactly with their int8 vectors. It is written here because
// the pure-Go libraries (chromem-go, coder/hnsw, vek) scan float32 or build
// graphs, and the SIMD ones need cgo; none scans int8 and bit codes laid out
// flat as memd stores them. It imports store (for QuantizedVector) and nothing
// else of memd.
package vector
