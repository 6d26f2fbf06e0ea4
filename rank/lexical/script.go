package lexical

import "unicode"

// IsBigramScript reports whether r belongs to a script written without
// spaces between words (CJK, and Thai, Lao, Khmer, Myanmar), whose runs the
// analyzer indexes as overlapping bigrams rather than as one long word.
// It is memd's one table of such scripts: the chunker's token estimate
// counts their characters as about a token each, and must agree with it.
func IsBigramScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	switch {
	case 0x0E00 <= r && r <= 0x0EFF, // Thai, Lao
		0x1000 <= r && r <= 0x109F, // Myanmar
		0x1780 <= r && r <= 0x17FF, // Khmer
		r == 0x30FC, r == 0x3005:   // prolonged sound mark, iteration mark
		return true
	case r < 0x1100:
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
