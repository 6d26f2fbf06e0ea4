package store

// appendFill is the fill percent of the buckets whose keys a commit
// mostly writes in order: chunk ids and span numbers only grow and a bulk
// add goes in path order. bbolt
// splits a page at half full by default, which suits keys inserted at
// random but leaves a bucket written in key order half empty: each split
// page is never written again.
var appendFill = [bucketCount]float64{
	bucketChunks:     0.95,
	bucketChunkTerms: 0.95,
	bucketLengths:    0.95,
	bucketNotes:      0.9,
	bucketPostings:   0.9,
}

// growStep is how far past its pages in use the file grows at a time.
// bbolt's default, 16 MiB, left a fresh store of SciFact a third larger
// than its pages; a commit grows the file at most once whatever the
// step, so a small one costs a few more truncates on a first index only.
const growStep = 256 << 10
