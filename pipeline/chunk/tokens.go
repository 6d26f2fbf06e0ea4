package chunk

import (
	"unicode"
	"unicode/utf8"

	"github.com/memd-dev/memd/rank/lexical"
)

// EstimateTokens is a cheap, upper-leaning estimate of how many tokens the
// BPE tokenizers of local models give s: a word of n letters or digits
// counts 1 + n/10, a CJK, Hangul, Thai, Lao, Khmer or Myanmar character
// (lexical.IsBigramScript) 1, any other non-space character 1, white space
// 0. It is subadditive: the estimate of a concatenation never exceeds the
// sum of its parts'.
func EstimateTokens(s string) int {
	// The ASCII loop keeps its state in locals and runs over a word's
	// letters in a loop of its own: this runs over every block.
	i, tokens, word := asciiPrefix(s)
	for i < len(s) {
		switch asciiClass[s[i]] {
		case classWord:
			j := i + 1
			for j < len(s) && asciiClass[s[j]] == classWord {
				j++
			}
			word += j - i
			i = j
			continue
		case classOther:
			tokens++
			i++
		case classSpace:
			i++
		default:
			e := estimator{tokens, word}
			r, size := utf8.DecodeRuneInString(s[i:])
			e.add(r)
			tokens, word = e.tokens, e.word
			i += size
			continue
		}
		if word > 0 {
			tokens += 1 + word/10
			word = 0
		}
	}
	return estimator{tokens, word}.total()
}

// asciiPrefix estimates the ASCII text s starts with, up to its first
// byte past ASCII (i), as the estimator would leave it: tokens, and the
// letters of a word not yet ended. It counts without a branch on the
// text: a word start counts one and every tenth letter of a word one more
// (so a word of n letters 1 + n/10), any other non-space byte one. Where
// words, spaces and punctuation alternate, the branches of a loop that
// switched on each byte's class were mispredicted at every word's end.
func asciiPrefix(s string) (i, tokens, word int) {
	prev, tenth := 0, 0 // prev: the byte before was a word's
	for ; i < len(s); i++ {
		k := asciiKind[s[i]]
		if k == kindMultiByte {
			break
		}
		w := int(k & kindWord)
		tokens += int(k>>1) + w&^prev
		mask := -w
		word = (word + 1) & mask
		tenth = (tenth + 1) & mask
		if tenth == 10 {
			tokens++
			tenth = 0
		}
		prev = w
	}
	if word > 0 {
		tokens -= 1 + word/10 // the estimator counts a word when it ends
	}
	return i, tokens, word
}

// asciiKind is asciiClass as asciiPrefix reads it: kindWord for letters
// and digits, kindOther for a byte that counts a token alone, 0 for white
// space.
var asciiKind = func() (t [256]byte) {
	for c, cl := range asciiClass {
		switch cl {
		case classWord:
			t[c] = kindWord
		case classOther:
			t[c] = kindOther
		case classMultiByte:
			t[c] = kindMultiByte
		}
	}
	return t
}()

const (
	kindWord      = 1
	kindOther     = 2
	kindMultiByte = 4
)

const (
	classSpace = iota
	classWord
	classOther
	classMultiByte // a byte of a rune past ASCII
)

// asciiClass classes every byte, so a string's bytes index it unchecked.
var asciiClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = classMultiByte
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = classWord
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			t[c] = classSpace
		default:
			t[c] = classOther
		}
	}
	return t
}()

// estimator is EstimateTokens one rune at a time.
type estimator struct{ tokens, word int }

func (e estimator) total() int {
	if e.word > 0 {
		return e.tokens + 1 + e.word/10
	}
	return e.tokens
}

func (e *estimator) endWord() {
	if e.word > 0 {
		e.tokens += 1 + e.word/10
		e.word = 0
	}
}

func (e *estimator) addASCII(c byte) {
	switch asciiClass[c] {
	case classWord:
		e.word++
	case classSpace:
		e.endWord()
	default:
		e.endWord()
		e.tokens++
	}
}

func (e *estimator) add(r rune) {
	if r < utf8.RuneSelf {
		e.addASCII(byte(r))
		return
	}
	switch {
	case lexical.IsBigramScript(r): // no spaces between words: about a token a character
		e.endWord()
		e.tokens++
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		e.word++
	case unicode.IsSpace(r):
		e.endWord()
	default:
		e.endWord()
		e.tokens++
	}
}
