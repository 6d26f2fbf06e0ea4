package lexical

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Version names the analysis Terms performs. It is bumped whenever a change
// would give any text different terms, and the store re-indexes on a change.
// 2: Han and Hangul characters are indexed alone beside their bigrams,
// katakana folds to hiragana, and 々 repeats the character before it.
const Version = 2

// MaxTermBytes is the longest term kept; longer words (base64 blobs, hashes
// glued to text) are dropped because no query would ever type them.
const MaxTermBytes = 64

// cacheFrom is the shortest text Terms analyzes with a word table. Making
// one costs more than stemming every word of a shorter text afresh; a query
// allocating one each time it found the pool emptied by the collector was
// recall's largest garbage.
const cacheFrom = 4 << 10

// maxTableWords bounds an Analyzer's word table: past it the table and the
// term ids start over (between a Counter's units), so a daemon that has
// seen millions of distinct words holds a few MB per Analyzer, not all of
// them.
const maxTableWords = 1 << 17

// Analyzer turns text into terms. Its zero value is ready to use. It keeps a
// table of the words it has analyzed and their terms, which is what makes it
// fast, so it is not safe for concurrent use: give each goroutine its own,
// or call Terms.
type Analyzer struct {
	// bare Analyzers (Terms' for short texts) never build the table: they
	// analyze each word afresh.
	bare bool
	word []byte // the word being read, already case-folded
	run  []rune // the bigram-script run being read
	buf  []byte // scratch for encoding a bigram

	// Where terms go: appended to out, or counted into counter.
	out     []string
	counter *Counter
	// words maps each word read to its term's id; ids (term → id) and
	// terms (id → term) number the terms, filled on a word's first
	// sighting only.
	words wordTable
	ids   map[string]uint32
	terms []string
}

var (
	pool     = sync.Pool{New: func() any { return new(Analyzer) }}
	barePool = sync.Pool{New: func() any { return &Analyzer{bare: true} }}
)

// Terms returns the terms of text in order, duplicates kept, exactly as the
// index stores them and as queries must be analyzed. It is safe for
// concurrent use and never fails: invalid UTF-8 bytes separate words.
func Terms(text string) []string {
	p := &pool
	if len(text) < cacheFrom {
		p = &barePool
	}
	a := p.Get().(*Analyzer)
	t := a.AppendTerms(nil, text)
	p.Put(a)
	return t
}

// Terms is the package-level Terms on this Analyzer's word table.
func (a *Analyzer) Terms(text string) []string { return a.AppendTerms(nil, text) }

// AppendTerms appends the terms of text to dst and returns the extended
// slice, so a caller analyzing many texts can reuse one slice.
//
// The analysis: NFKC; split into words at anything that is not a letter,
// digit or combining mark (so "snake_case" and "v1.2" give their parts);
// case folding; Latin diacritics removed; Lucene's English stop words
// dropped; Porter2 stemming of words of ASCII letters; runs of CJK (Han,
// Hiragana, Katakana, Hangul) and of Thai, Lao, Khmer and Myanmar become
// overlapping bigrams, with each Han and Hangul character a unigram too
// (see unigram), katakana folded to hiragana; possessive 's dropped.
func (a *Analyzer) AppendTerms(dst []string, text string) []string {
	a.out = dst
	a.scan(text)
	dst = a.out
	a.out = nil
	return dst
}

// scan analyzes text, emitting each term to the Analyzer's sink.
func (a *Analyzer) scan(text string) {
	if a.counter == nil && a.words.words > maxTableWords {
		a.forget() // no id is held between calls: only a Counter keeps them
	}
	if !isASCII(text) {
		text = norm.NFKC.String(text)
	}
	a.word, a.run = a.word[:0], a.run[:0]
	latin := false // the last letter read was Latin, so its marks fold away
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiLower[c] != 0 {
				if len(a.run) > 0 {
					a.flushRun()
				}
				if len(a.word) == 0 && !a.bare {
					if j, ok := a.emitASCIIWord(text, i); ok {
						i, latin = j, true
						continue
					}
				}
				i = a.appendASCII(text, i)
				latin = true
				continue
			}
			i++
			a.flush()
			if c == '\'' && possessive(text, i) {
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case IsBigramScript(r):
			if len(a.word) > 0 {
				a.flush()
			}
			a.run = append(a.run, foldKana(r, a.run))
			continue
		case unicode.IsLetter(r):
			if len(a.run) > 0 {
				a.flushRun()
			}
			if s, ok := latinFold[r]; ok {
				a.word = append(a.word, s...)
				latin = true
				continue
			}
			a.word = utf8.AppendRune(a.word, foldRune(r))
			latin = unicode.Is(unicode.Latin, r)
			continue
		case unicode.IsDigit(r), unicode.IsMark(r):
			if isLatinMark(r) && latin {
				continue
			}
			if len(a.run) > 0 && unicode.IsMark(r) {
				a.run = append(a.run, r)
				continue
			}
			if len(a.run) > 0 {
				a.flushRun()
			}
			a.word = utf8.AppendRune(a.word, r)
			continue
		}
		a.flush()
		if r == '\u2019' && possessive(text, i) {
			i++
		}
	}
	a.flush()
}

// appendASCII appends the run of ASCII letters and digits at text[i:] to
// the word, case-folded, and returns the index after it: one copy and one
// pass instead of an append per byte.
func (a *Analyzer) appendASCII(text string, i int) int {
	j := i + 1
	for j < len(text) && asciiLower[text[j]] != 0 {
		j++
	}
	k := len(a.word)
	a.word = append(a.word, text[i:j]...)
	for w := a.word[k:]; len(w) > 0; w = w[1:] {
		w[0] = asciiLower[w[0]]
	}
	return j
}

// emitASCIIWord emits the word of ASCII letters and digits at text[i:] when
// it is whole (what follows is ASCII or nothing) and short, and returns
// the index after it; most words are. A word the short cache holds costs
// no copy: its key is read from text, lower-cased in the register.
func (a *Analyzer) emitASCIIWord(text string, i int) (int, bool) {
	j := i + 1
	for j < len(text) && asciiLower[text[j]] != 0 {
		j++
	}
	n := j - i
	if n > maxShortWord || j < len(text) && text[j] >= utf8.RuneSelf {
		return i, false
	}
	lo, hi := packWord(text[i:j])
	lo |= lowerMask(n)
	if n > 8 {
		hi |= lowerMask(n - 8)
	}
	if e := a.words.shortSlot(lo, hi); e.lo == lo && e.hi == hi && e.n == uint32(n) {
		if e.term != 0 {
			a.emitID(e.term - 1)
		}
		return j, true
	}
	a.appendASCII(text, i)
	a.flush()
	return j, true
}

// flush ends the current word (and bigram run) and emits its term.
func (a *Analyzer) flush() {
	if len(a.run) > 0 {
		a.flushRun()
	}
	if len(a.word) == 0 {
		return
	}
	w := a.word
	a.word = a.word[:0]
	if len(w) > MaxTermBytes {
		return
	}
	a.emit(w, analyzeWord)
}

// emit hands the term of word w to the sink; analyze gives the term of a
// word not seen before ("" drops it).
func (a *Analyzer) emit(w []byte, analyze func([]byte) string) {
	if a.bare {
		if t := analyze(w); t != "" {
			a.out = append(a.out, t)
		}
		return
	}
	if len(w) > maxShortWord {
		if term := a.termOf(w, analyze); term != 0 {
			a.emitID(term - 1)
		}
		return
	}
	e, ok := a.words.shortEntry(w)
	if !ok {
		e.term = a.termOf(w, analyze)
	}
	if e.term != 0 {
		a.emitID(e.term - 1)
	}
}

// termOf returns 1 + the id of w's term, or 0 when w is dropped, from the
// word table, analyzing w on its first sighting.
func (a *Analyzer) termOf(w []byte, analyze func([]byte) string) uint32 {
	h := hashWord(w)
	s, ok := a.words.find(w, h)
	if ok {
		return s.term
	}
	var term uint32
	if t := analyze(w); t != "" {
		term = a.idOf(t) + 1
	}
	a.words.insert(s, w, h, term)
	return term
}

func (a *Analyzer) emitID(id uint32) {
	if a.counter != nil {
		a.counter.add(id)
		return
	}
	a.out = append(a.out, a.terms[id])
}

// analyzeWord is the uncached part of a word's analysis.
func analyzeWord(w []byte) string {
	if isStopWord(w) {
		return ""
	}
	if len(w) > 2 && isLetters(w) {
		return stem(w)
	}
	return string(w)
}

// flushRun emits the terms of a bigram-script run: at each character its
// unigram where unigram says so, then the bigram it starts. A run of one
// character is that character.
func (a *Analyzer) flushRun() {
	r := a.run
	a.run = a.run[:0]
	if len(r) == 1 {
		a.emitRunes(r[0], -1)
		return
	}
	for k := range r {
		if unigram(r[k]) {
			a.emitRunes(r[k], -1)
		}
		if k+1 < len(r) {
			a.emitRunes(r[k], r[k+1])
		}
	}
}

// emitRunes emits the term of one or two runes (r2 < 0: one), through the
// word table, so repeated bigrams cost no allocation.
func (a *Analyzer) emitRunes(r1, r2 rune) {
	a.buf = utf8.AppendRune(a.buf[:0], r1)
	if r2 >= 0 {
		a.buf = utf8.AppendRune(a.buf, r2)
	}
	a.emit(a.buf, asWritten)
}

func asWritten(b []byte) string { return string(b) }

// idOf numbers a term.
func (a *Analyzer) idOf(term string) uint32 {
	if a.ids == nil {
		a.ids = make(map[string]uint32)
	}
	id, ok := a.ids[term]
	if !ok {
		id = uint32(len(a.terms))
		a.ids[term] = id
		a.terms = append(a.terms, term)
	}
	return id
}

// reserve sizes the word table and the term ids' map for n words.
func (a *Analyzer) reserve(n int) {
	a.ids = make(map[string]uint32, n)
	a.words.slots = make([]wordSlot, max(minWordSlots, 1<<bits.Len(uint(2*n-1)))) // at most half full
}

// forget empties the word table and the term ids.
func (a *Analyzer) forget() {
	a.words, a.ids, a.terms = wordTable{}, nil, nil
}

// possessive reports whether text[i:] (just after an apostrophe) is the "s"
// of a possessive, which is dropped rather than indexed as a lone "s".
func possessive(text string, i int) bool {
	if i >= len(text) || text[i]|0x20 != 's' {
		return false
	}
	if i+1 == len(text) {
		return true
	}
	c := text[i+1]
	if c < utf8.RuneSelf {
		return !isAlnumASCII(c)
	}
	r, _ := utf8.DecodeRuneInString(text[i+1:])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

func isAlnumASCII(c byte) bool { return asciiLower[c] != 0 }

// asciiLower maps an ASCII letter or digit to its lower case, anything else
// (non-ASCII bytes too) to 0; one load per byte instead of a chain of
// compares.
var asciiLower = func() (t [256]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isLetters reports whether w is all a-z: only those words go through the
// English stemmer; numbers, codes and other scripts are kept as written.
func isLetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
