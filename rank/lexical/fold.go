package lexical

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// latinFold maps a precomposed Latin letter (U+0080–U+024F, U+1E00–U+1EFF)
// to its lower-case ASCII spelling without diacritics, so "Café" and "cafe"
// meet in the index. Built once at init from the Unicode decompositions, so
// no per-rune normalization runs while analyzing.
var latinFold = map[rune]string{}

// latinSpecial covers letters whose diacritic is not a combining mark in
// Unicode (ø, ł, đ) and ligatures, after the usual ASCII-folding filters.
var latinSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d",
	'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ħ': "h", 'Ħ': "h",
	'ı': "i", 'ŀ': "l", 'Ŀ': "l", 'ŧ': "t", 'Ŧ': "t", 'ƒ': "f",
	'ĸ': "k", 'ŉ': "n", 'ſ': "s",
}

func init() {
	add := func(lo, hi rune) {
		for r := lo; r <= hi; r++ {
			if !unicode.Is(unicode.Latin, r) || !unicode.IsLetter(r) {
				continue
			}
			if s, ok := latinSpecial[r]; ok {
				latinFold[r] = s
				continue
			}
			var buf [utf8.UTFMax]byte
			n := utf8.EncodeRune(buf[:], r)
			d := norm.NFKD.Bytes(buf[:n])
			base, _ := utf8.DecodeRune(d)
			base = unicode.ToLower(base)
			if base < utf8.RuneSelf && ('a' <= base && base <= 'z') {
				latinFold[r] = string(base)
			}
		}
	}
	add(0x80, 0x24F)
	add(0x1E00, 0x1EFF)
}

// isLatinMark reports whether r is a combining mark that decorates Latin
// (and Greek/Cyrillic) letters; it is dropped after a Latin letter, while
// the marks of Indic and other scripts stay part of their words.
func isLatinMark(r rune) bool {
	return (0x300 <= r && r <= 0x36F) || (0x1AB0 <= r && r <= 0x1AFF) ||
		(0x1DC0 <= r && r <= 0x1DFF) || (0x20D0 <= r && r <= 0x20FF) ||
		(0xFE20 <= r && r <= 0xFE2F)
}

// foldRune lower-cases a non-ASCII rune; the final sigma folds to σ so a
// word matches wherever it stands in a sentence.
func foldRune(r rune) rune {
	if r == 'ς' {
		return 'σ'
	}
	return unicode.ToLower(r)
}
