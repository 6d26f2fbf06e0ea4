package rank

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memd-dev/memd/rank/lexical"
)

// Typo tolerance: a query term the index does not know, or knows only
// rarely, is matched to a known term within a small edit distance.
//
// The structure over the term dictionary is a symmetric-delete index (the
// idea of Wolf Garbe's SymSpell): every term is stored under each string
// made by deleting up to two letters of its first seven, and a query term
// looks up the deletions of its own first seven. Two strings within edit
// distance d share a deletion of at most d letters each, so one sorted
// table answers every query with a few dozen binary searches and no scan
// of the dictionary; candidates are then checked with the true distance.
// A Levenshtein automaton walked over the sorted terms would need no
// table, but it visits a share of the dictionary that grows with it and
// costs far more code; the table is built once from the postings (8
// bytes per deletion, 29 deletions for a term of seven letters or more)
// and then costs microseconds per query term.

const (
	typoPrefix   = 7 // letters of a term that index it (SymSpell's prefix)
	typoMaxEdits = 2
	// typoMinDF is the fewest chunks a term must be in to be a correction:
	// a term found once is as likely a typo in a note as a word.
	typoMinDF = 2
)

// Typos tunes typo tolerance. The zero value is memd's default.
type Typos struct {
	// Off turns it off: a term the index does not know matches nothing.
	Off bool
	// Penalty scales a corrected term's BM25 weight by edit distance, so
	// a chunk holding the query's own spelling ranks above one holding a
	// correction; default 0.8 for one edit and 0.6 for two.
	Penalty [typoMaxEdits + 1]float64
}

// DefaultTypos holds the values zero fields of Typos take.
var DefaultTypos = Typos{Penalty: [typoMaxEdits + 1]float64{1, 0.8, 0.6}}

// WithDefaults fills t's zero fields from DefaultTypos.
func (t Typos) WithDefaults() Typos {
	for i, p := range t.Penalty {
		if p <= 0 {
			t.Penalty[i] = DefaultTypos.Penalty[i]
		}
	}
	return t
}

// maxEdits is how many edits a term of n letters may be corrected by:
// none below four letters (too many words are one edit apart), one up to
// five, two from six.
func maxEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 6:
		return 1
	}
	return typoMaxEdits
}

// Dictionary is the index's terms worth correcting to, with the number of
// chunks each is in, and the deletion table over them. It is immutable.
type Dictionary struct {
	terms []string
	df    []int // of terms
	// dels is the deletion table, sorted: each entry is the hash of a
	// deletion with its low termBits replaced by the index of its term
	// in terms. One uint64 sorts fastest and takes half the memory of a
	// hash beside an index; the hash bits lost only let a few more
	// candidates through, each then checked by its edit distance.
	dels     []uint64
	termBits uint
	seed     maphash.Seed
}

// keyOf is the part of a deletion's hash its table entries keep, and
// termOf the index of the term an entry is of.
func (d *Dictionary) keyOf(hash uint64) uint64   { return hash >> d.termBits << d.termBits }
func (d *Dictionary) termOf(entry uint64) uint64 { return entry & (1<<d.termBits - 1) }

// NewDictionary builds a Dictionary from each term and its document
// frequency, as each calls its function for every term of the index.
// It hashes each deletion from a buffer, with no string made, into a
// table sized up front: the first recall that corrects a typo waits for
// it (SciFact's 26k terms took 0.23 s as strings in a growing table).
func NewDictionary(each func(fn func(term string, df int))) *Dictionary {
	d := &Dictionary{seed: maphash.MakeSeed()}
	type entry struct {
		term string
		df   int
	}
	var entries []entry
	n := 0
	each(func(term string, df int) {
		if df >= typoMinDF && correctable(term) {
			entries = append(entries, entry{term, df})
			n += deletionCount(min(utf8.RuneCountInString(term), typoPrefix))
		}
	})
	// Sorted, so that DocFreq finds a term by binary search.
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.term, b.term) })
	d.terms, d.df = make([]string, len(entries)), make([]int, len(entries))
	d.termBits = uint(max(1, bits.Len(uint(len(entries)))))
	d.dels = make([]uint64, 0, n)
	var buf []byte
	for id, e := range entries {
		d.terms[id], d.df[id] = e.term, e.df
		buf = eachDeletion(buf, e.term, func(s []byte) {
			d.dels = append(d.dels, d.keyOf(maphash.Bytes(d.seed, s))|uint64(id))
		})
	}
	slices.Sort(d.dels)
	d.dels = slices.Compact(d.dels)
	return d
}

// deletionCount is how many strings eachDeletion makes of a prefix of n
// runes: itself, n with one rune deleted, n(n-1)/2 with two.
func deletionCount(n int) int { return 1 + n + n*(n-1)/2 }

// eachDeletion calls fn with every string made by deleting up to
// typoMaxEdits (two) runes of term's first typoPrefix, the prefix itself
// included, possibly with repeats (deleting either "o" of "boot"): the
// strings deletions makes, each once per set of positions deleted. fn's
// argument is valid only during the call; buf is scratch space, returned
// for the next call.
func eachDeletion(buf []byte, term string, fn func([]byte)) []byte {
	var at [typoPrefix + 1]int // byte offsets of the prefix's runes, then of its end
	n, end := 0, len(term)
	for i := range term {
		if n == typoPrefix {
			end = i
			break
		}
		at[n] = i
		n++
	}
	at[n] = end
	prefix := term[:end]
	buf = append(buf[:0], prefix...)
	fn(buf)
	for i := range n {
		buf = append(append(buf[:0], prefix[:at[i]]...), prefix[at[i+1]:]...)
		fn(buf)
		for j := i + 1; j < n; j++ {
			buf = append(append(append(buf[:0], prefix[:at[i]]...), prefix[at[i+1]:at[j]]...), prefix[at[j+1]:]...)
			fn(buf)
		}
	}
	return buf
}

// DocFreq is how many chunks held term when d was built; known is false
// for a term d does not hold any of (a number, a CJK pair), whose count
// it cannot say. A correctable term it lacks was in fewer than two chunks,
// or is newer than d.
func (d *Dictionary) DocFreq(term string) (df int, known bool) {
	if !correctable(term) {
		return 0, false
	}
	if i, ok := slices.BinarySearch(d.terms, term); ok {
		return d.df[i], true
	}
	return 0, true
}

// mayCorrect reports whether Suggest could correct term at all, so the
// dictionary is not built for a query whose rare terms are too short to
// correct or are numbers.
func mayCorrect(term string) bool {
	return maxEdits(utf8.RuneCountInString(term)) > 0 && correctable(term)
}

// hasRare reports whether a term of terms that Suggest could correct is in
// fewer than rareDF chunks.
func hasRare(terms []string, df []int) bool {
	for i, term := range terms {
		if df[i] < rareDF && mayCorrect(term) {
			return true
		}
	}
	return false
}

// correctable is a term typos are looked for in and corrected to: letters
// only (a number or code is not misspelled), and no script written
// without spaces, whose terms are character pairs.
func correctable(term string) bool {
	for _, r := range term {
		if !unicode.IsLetter(r) || lexical.IsBigramScript(r) {
			return false
		}
	}
	return true
}

// deletions is every string made by deleting up to n runes of w's first
// typoPrefix, w's prefix itself included, possibly with repeats.
func deletions(w []rune, n int) []string {
	w = w[:min(len(w), typoPrefix)]
	out := []string{string(w)}
	level := [][]rune{w}
	for range n {
		var next [][]rune
		for _, s := range level {
			for i := range s {
				d := append(append(make([]rune, 0, len(s)-1), s[:i]...), s[i+1:]...)
				next = append(next, d)
				out = append(out, string(d))
			}
		}
		level = next
	}
	return out
}

// Suggestion is the known term a query term is corrected to.
type Suggestion struct {
	Term  string
	Edits int
	DF    int
}

// Suggest is the known term nearest to term within its edit budget
// (maxEdits), preferring fewer edits, then the term in more chunks, then
// the first in byte order; ok is false when there is none.
func (d *Dictionary) Suggest(term string) (s Suggestion, ok bool) {
	if !mayCorrect(term) {
		return s, false
	}
	w := []rune(term)
	budget := maxEdits(len(w))
	seen := map[uint64]bool{}
	for _, del := range deletions(w, budget) {
		key := d.keyOf(maphash.String(d.seed, del))
		i, _ := slices.BinarySearch(d.dels, key)
		for ; i < len(d.dels) && d.keyOf(d.dels[i]) == key; i++ {
			id := d.termOf(d.dels[i])
			if seen[id] {
				continue
			}
			seen[id] = true
			cand := d.terms[id]
			if cand == term {
				continue
			}
			e := editDistance(w, []rune(cand), budget)
			if e > budget {
				continue
			}
			c := Suggestion{Term: cand, Edits: e, DF: d.df[id]}
			if !ok || c.Edits < s.Edits || (c.Edits == s.Edits && (c.DF > s.DF || (c.DF == s.DF && c.Term < s.Term))) {
				s, ok = c, true
			}
		}
	}
	return s, ok
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours), or
// max+1 once it is sure to exceed max.
func editDistance(a, b []rune, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Correction is one query term the recall spelled otherwise. Kept says
// the term was also looked for as it was: the index knows it, rarely.
// Word is the correction as the notes write it, for showing: To is a stem
// ("involv"), no word to show a person. Correct leaves Word empty for its
// caller, who can read the notes, to set.
type Correction struct {
	From, To string
	Kept     bool
	Word     string
}

// rareDF is the fewest chunks a term must be in for it never to be
// corrected.
const rareDF = 4

// Correct matches each term of q that the index does not know, or knows in
// fewer than rareDF chunks and a twentieth as many as a known term within
// its edit budget, to that known term, weighted by t's penalty. An unknown
// term is replaced; a rare one stays beside its correction. df is each
// term's chunk count (BM25.Rank's); dict is called only when a term is
// rare, and may return nil (no correction).
func (t Typos) Correct(q Query, df []int, dict func() *Dictionary) (Query, []Correction) {
	if t.Off || !hasRare(q.Terms, df) {
		return q, nil
	}
	d := dict()
	if d == nil {
		return q, nil
	}
	var fixes []Correction
	out := Query{Weights: map[string]float64{}}
	for i, term := range q.Terms {
		n := df[i]
		var s Suggestion
		ok := n < rareDF
		if ok {
			s, ok = d.Suggest(term)
			ok = ok && (n == 0 || s.DF >= 20*n)
		}
		if n > 0 || !ok {
			out.add(term, q.Weights[term])
		}
		if ok {
			out.add(s.Term, q.Weights[term]*t.Penalty[s.Edits])
			fixes = append(fixes, Correction{From: term, To: s.Term, Kept: n > 0})
		}
	}
	return out, fixes
}

// TypedWords is the word of text each term of fixes was analyzed from,
// lower-cased ("uninvolved" for "uninvolv"): what a correction's Word is
// chosen to look like.
func TypedWords(text string, fixes []Correction) map[string]string {
	out := map[string]string{}
	eachFixedWord(text, fixes, func(_ int, _, word, _ string, f Correction) {
		out[f.From] = strings.ToLower(word)
	})
	return out
}

// CorrectText is text as recall looked for it, for the answer's "showing
// results for": each word whose term fixes corrected is spelled as its
// correction (its Word, else its term) in the typed word's case, and a
// word also looked for as it was (Kept) is followed by "(or correction)":
// "Cataract, trachoma" → "Cataract (or Attract), trachoma".
func CorrectText(text string, fixes []Correction) string {
	if len(fixes) == 0 {
		return ""
	}
	words := strings.Fields(text)
	eachFixedWord(text, fixes, func(i int, lead, word, trail string, f Correction) {
		fixed := f.Word
		if fixed == "" {
			fixed = f.To
		}
		fixed = caseLike(word, fixed)
		if f.Kept {
			fixed = word + " (or " + fixed + ")"
		}
		words[i] = lead + fixed + trail
	})
	return strings.Join(words, " ")
}

// eachFixedWord calls fn for each word of text (split on spaces, the i-th)
// that is one term, which fixes corrected, with the punctuation around it.
func eachFixedWord(text string, fixes []Correction, fn func(i int, lead, word, trail string, f Correction)) {
	for i, w := range strings.Fields(text) {
		word := strings.TrimFunc(w, isPunctAround)
		terms := lexical.Terms(word)
		if len(terms) != 1 {
			continue
		}
		for _, f := range fixes {
			if f.From == terms[0] {
				lead := w[:strings.Index(w, word)]
				fn(i, lead, word, w[len(lead)+len(word):], f)
				break
			}
		}
	}
}

// isPunctAround is punctuation a word of a sentence is set in: "(", ",".
func isPunctAround(r rune) bool { return unicode.IsPunct(r) && r != '-' }

// caseLike is word in the case typed is in: all capitals, or a capital
// first. A word the notes write with capitals past its first letter
// ("YAP", "iTregs") stays as it is; one capital first is taken for the
// start of a sentence.
func caseLike(typed, word string) string {
	r, n := utf8.DecodeRuneInString(word)
	if rest := word[n:]; rest != strings.ToLower(rest) {
		return word
	}
	word = string(unicode.ToLower(r)) + word[n:]
	switch {
	case len(typed) > 1 && typed == strings.ToUpper(typed) && typed != strings.ToLower(typed):
		return strings.ToUpper(word)
	case startsUpper(typed):
		r, n := utf8.DecodeRuneInString(word)
		return string(unicode.ToUpper(r)) + word[n:]
	}
	return word
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
