package store

// termCache holds the term dictionary's term → id in memory across write
// transactions, so a commit finds the id of a term it has seen before with
// one map lookup, not a walk or a Get of the bbolt dictionary (at 100k
// notes, where later batches mostly hold known terms, those descents were
// a tenth of indexing's CPU). Only write transactions use it, under
// DB.writes. It learns a transaction's terms only once that transaction
// has committed (bbolt's OnCommit), so a batch rolled back leaves it no
// id the file does not hold; ids never change meaning (postings.go), so
// what it holds stays true until the lexicon is rebuilt (a migration) or
// the cache is dropped (DB.ReleaseCaches, when the daemon goes idle).
type termCache struct {
	index   map[string]int32 // term → its entry
	entries []termEntry
	// resolves counts resolveAdded calls; an entry whose resolve is this
	// one has its local index set for it.
	resolves uint32
}

// termEntry is a cached term's id and, for the transaction resolving its
// terms, the term's index among them.
type termEntry struct {
	id      uint32
	resolve uint32
	local   int32
}

// learn records the ids of terms, which a committed transaction wrote or
// read from the dictionary.
func (c *termCache) learn(terms []string, ids []uint32) {
	if c.index == nil {
		c.index = make(map[string]int32, len(terms))
	}
	for i, term := range terms {
		c.index[term] = int32(len(c.entries))
		c.entries = append(c.entries, termEntry{id: ids[i]})
	}
}

// ReleaseCaches drops what the store keeps in memory between write
// transactions (the term ids of the lexicon) for an idle daemon to give
// back; the next write fills it again.
func (db *DB) ReleaseCaches() {
	db.writes.Lock()
	defer db.writes.Unlock()
	db.terms = termCache{}
}
