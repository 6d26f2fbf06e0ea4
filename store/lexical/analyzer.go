package lexical

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Version names the analysis Terms performs. It is bumped whenever a change
// would give any text different terms, and the store re-indexes on a change.
const Version = 1

// MaxTermBytes is the longest term kept; longer words (base64 blobs, hashes
// glued to text) are dropped because no query would ever type them.
const MaxTermBytes = 64

// cacheLimit bounds an Analyzer's word cache; past it the cache starts over,
// which costs a few re-stems but keeps memory flat on huge vocabularies.
const cacheLimit = 1 << 16

// Analyzer turns text into terms. Its zero value is ready to use. It keeps a
// cache of analyzed words between calls, which is what makes it fast, so it
// is not safe for concurrent use: give each goroutine its own, or call Terms.
type Analyzer struct {
	cache map[string]string // surface word -> term; "" for a dropped word
	word  []byte            // the word being read, already case-folded
	run   []rune            // the bigram-script run being read
	buf   []byte            // scratch for encoding a bigram
}

var pool = sync.Pool{New: func() any { return new(Analyzer) }}

// Terms returns the terms of text in order, duplicates kept, exactly as the
// index stores them and as queries must be analyzed. It is safe for
// concurrent use and never fails: invalid UTF-8 bytes separate words.
func Terms(text string) []string {
	a := pool.Get().(*Analyzer)
	t := a.AppendTerms(nil, text)
	pool.Put(a)
	return t
}

// Terms is the package-level Terms on this Analyzer's cache.
func (a *Analyzer) Terms(text string) []string { return a.AppendTerms(nil, text) }

// AppendTerms appends the terms of text to dst and returns the extended
// slice, so a caller analyzing many texts can reuse one slice.
//
// The analysis: NFKC; split into words at anything that is not a letter,
// digit or combining mark (so "snake_case" and "v1.2" give their parts);
// case folding; Latin diacritics removed; Lucene's English stop words
// dropped; Porter2 stemming of words of ASCII letters; runs of CJK (Han,
// Hiragana, Katakana, Hangul) and of Thai, Lao, Khmer and Myanmar become
// overlapping bigrams, a lone character a unigram; possessive 's dropped.
func (a *Analyzer) AppendTerms(dst []string, text string) []string {
	if a.cache == nil {
		a.cache = make(map[string]string, 1024)
	}
	if !isASCII(text) {
		text = norm.NFKC.String(text)
	}
	a.word, a.run = a.word[:0], a.run[:0]
	latin := false // the last letter read was Latin, so its marks fold away
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				dst = a.flush(dst)
				if c == '\'' && possessive(text, i) {
					i++
				}
				continue
			}
			if len(a.run) > 0 {
				dst = a.flushRun(dst)
			}
			a.word = append(a.word, c)
			latin = true
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isBigramScript(r):
			if len(a.word) > 0 {
				dst = a.flush(dst)
			}
			a.run = append(a.run, r)
			continue
		case unicode.IsLetter(r):
			if len(a.run) > 0 {
				dst = a.flushRun(dst)
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
				dst = a.flushRun(dst)
			}
			a.word = utf8.AppendRune(a.word, r)
			continue
		}
		dst = a.flush(dst)
		if r == '\u2019' && possessive(text, i) {
			i++
		}
	}
	return a.flush(dst)
}

// flush ends the current word (and bigram run) and appends its term.
func (a *Analyzer) flush(dst []string) []string {
	if len(a.run) > 0 {
		dst = a.flushRun(dst)
	}
	if len(a.word) == 0 {
		return dst
	}
	w := a.word
	a.word = a.word[:0]
	if len(w) > MaxTermBytes {
		return dst
	}
	t, ok := a.cache[string(w)]
	if !ok {
		t = analyzeWord(w)
		if len(a.cache) >= cacheLimit {
			clear(a.cache)
		}
		a.cache[string(w)] = t
	}
	if t == "" {
		return dst
	}
	return append(dst, t)
}

// analyzeWord is the uncached part of a word's analysis.
func analyzeWord(w []byte) string {
	if isStopWord(w) {
		return ""
	}
	if len(w) > 2 && isLetters(w) {
		return english.Stem(string(w), true)
	}
	return string(w)
}

// flushRun appends the bigrams of a bigram-script run.
func (a *Analyzer) flushRun(dst []string) []string {
	r := a.run
	a.run = a.run[:0]
	if len(r) == 1 {
		return append(dst, a.intern(r[0], -1))
	}
	for k := 0; k+1 < len(r); k++ {
		dst = append(dst, a.intern(r[k], r[k+1]))
	}
	return dst
}

// intern returns the string of one or two runes (r2 < 0: one) from the
// cache, so repeated bigrams cost no allocation.
func (a *Analyzer) intern(r1, r2 rune) string {
	a.buf = utf8.AppendRune(a.buf[:0], r1)
	if r2 >= 0 {
		a.buf = utf8.AppendRune(a.buf, r2)
	}
	if t, ok := a.cache[string(a.buf)]; ok {
		return t
	}
	t := string(a.buf)
	if len(a.cache) >= cacheLimit {
		clear(a.cache)
	}
	a.cache[t] = t
	return t
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

func isAlnumASCII(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

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
