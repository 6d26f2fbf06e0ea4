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

// unigram reports whether a character inside a run is indexed alone as
// well as in its bigrams, so a one-character query finds it mid-run (桜 in
// 桜の花, 책 in 책을). Han and Hangul only: there one character is often
// a word, while a lone kana is mostly a particle (の, を) and a lone Thai,
// Lao, Khmer or Myanmar letter is never a word, so their unigrams would
// grow the index for queries nobody types. Unigrams rather than a prefix
// search over bigrams: a run's last character starts no bigram, and the
// same analysis must serve index and query with no dictionary scan.
func unigram(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r))
}

// foldKana folds katakana to hiragana, so サクラ, ｻｸﾗ (made katakana by
// NFKC) and さくら are one word, and replaces the iteration mark 々 with
// the Han character before it in run (人々 is 人人). Kana and kanji
// spellings of one word (さくら, 桜) cannot be joined without a reading
// dictionary, which the analyzer does not carry.
func foldKana(r rune, run []rune) rune {
	switch {
	case 0x30A1 <= r && r <= 0x30F6: // ァ … ヶ
		return r - 0x60
	case r == 0x3005 && len(run) > 0 && unicode.Is(unicode.Han, run[len(run)-1]):
		return run[len(run)-1]
	}
	return r
}
