package store

import (
	"slices"
	"sync/atomic"
)

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
	// gen names this cache's entries among all caches of all stores
	// (cacheGens), from its first learn to its reset: a Vocabulary mark
	// naming an entry holds for the cache of its generation only.
	gen uint64
	// scratch is a commit's largest working arrays, kept for the next
	// commit with the ids and dropped with them.
	scratch commitScratch
}

// commitScratch holds the arrays a commit resolves its terms and gathers
// its postings in (resolveAdded), between write transactions: a burst of
// commits reuses them instead of allocating them anew, about 30 bytes a
// term occurrence a commit (at 100k notes a gigabyte of a bulk add's
// garbage, each collection of it marking the whole live heap). Nothing
// holds on to the arrays once a commit has written its blocks, nor to
// the records once it has ended.
type commitScratch struct {
	occ      []int32
	postings []Posting
	recs     []uint64
	// records holds the records a write transaction puts (arena.go),
	// for the next one once it has committed.
	records valueArena
}

// sized returns s with length n, its own array when that is large enough.
// The elements are not cleared: callers write each before reading it.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// cacheGens numbers term caches as they start (termCache.gen); 0 is none.
var cacheGens atomic.Uint64

// termEntry is a cached term's id and, for the transaction resolving its
// terms, the term's index among them.
type termEntry struct {
	id      uint32
	local   int32
	resolve uint64 // the resolveAdded call local is for (resolveStamps)
}

// learn records the ids of terms, which a committed transaction wrote or
// read from the dictionary.
func (c *termCache) learn(terms []string, ids []uint32) {
	if c.index == nil {
		c.index = make(map[string]int32, len(terms))
		c.gen = cacheGens.Add(1)
	}
	c.entries = slices.Grow(c.entries, len(terms))
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

// Vocabulary is how a producer of chunks numbers their terms
// (TermNum.Num): an analyzer's own term ids, dense from 0, and holds each
// numbered term's string once (Name), for the commits. A commit then
// finds a term occurrence's local index by its number, an array index, and
// hashes the term's string once per commit and number rather than once
// per occurrence (half a million times for SciFact). A producer whose
// numbering restarts takes a new Vocabulary. Commits use it one at a time
// (DB.writes); the producer names numbers while they run.
type Vocabulary struct {
	// terms are the named terms by number, "" for a number not named
	// yet. The producer names numbers while a commit reads others, so
	// it writes only unnamed elements and swaps in a grown table whole.
	terms atomic.Pointer[[]string]
	marks []vocabMark // by number
}

// vocabFirstTerms is how many terms a Vocabulary's table first holds: as
// many as a lexical.Counter's, so a vault of ten thousand terms (Dendron's)
// names them without growing it.
const vocabFirstTerms = 1 << 14

// Name records term as number num's, unless num is named already: the
// producer calls it before it hands on a chunk whose Nums hold num.
func (v *Vocabulary) Name(num uint32, term string) {
	var terms []string
	if p := v.terms.Load(); p != nil {
		terms = *p
	}
	if int(num) < len(terms) {
		if terms[num] == "" {
			terms[num] = term
		}
		return
	}
	grown := make([]string, max(2*len(terms), int(num)+1, vocabFirstTerms))
	copy(grown, terms)
	grown[num] = term
	v.terms.Store(&grown)
}

// Term is the term named num (Name), "" if none is.
func (v *Vocabulary) Term(num uint32) string {
	p := v.terms.Load()
	if p == nil || int(num) >= len(*p) {
		return ""
	}
	return (*p)[num]
}

// vocabMark is a numbered term's local index in the commit resolving it,
// and its entry in the term cache of generation cacheGen (0: none known).
type vocabMark struct {
	resolve  uint64 // the resolveAdded call local is for (resolveStamps)
	local    int32
	entry    int32
	cacheGen uint64
}

// reserve makes room for the numbers up to top at once, the highest a
// commit's chunks hold, rather than growing the marks chunk by chunk (a
// first index of the Dendron vault grew them to five times their size).
func (v *Vocabulary) reserve(top int) {
	if top >= len(v.marks) {
		v.marks = append(v.marks, make([]vocabMark, top+1-len(v.marks))...)
	}
}

func (v *Vocabulary) mark(num uint32) *vocabMark {
	if int(num) >= len(v.marks) {
		v.marks = append(v.marks, make([]vocabMark, int(num)+1-len(v.marks))...)
	}
	return &v.marks[num]
}
