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
	bucketTermNames:  0.95,
	bucketNotes:      0.9,
	bucketPostings:   0.9,
}

// growStep is how far past its pages in use the file grows when a commit
// needs more: a thirty-second of its size, from 256 KiB to 8 MiB. bbolt's
// fixed 16 MiB left a fresh store of SciFact a third larger than its
// pages; a fixed 256 KiB made a growing store truncate and fsync the file
// on almost every commit (bbolt syncs a growth even without NoSync).
func growStep(size int64) int {
	return int(min(max(size/32, 256<<10), 8<<20))
}
