package store

// ChunkRanked reports whether the lexical index holds a term of chunk id.
// A chunk of template boilerplate holds none (the pipeline counts no word
// of it) and is shown with its note but is never a hit; nor is a chunk
// without a word at all.
func (t *Tx) ChunkRanked(id uint64) bool {
	return len(t.get(bucketChunkTerms, u64key(id))) > 0
}
