package lexical

// stem returns the English Porter2 ("snowball english") stem of w, a word of
// ASCII lowercase letters a-z longer than two bytes. Its output is exactly
// what github.com/kljensen/snowball/english.Stem(string(w), true) returns,
// special-word lists, quirks and all; TestStemMatchesSnowball holds it equal
// to that library over real corpora and a list of tricky words.
//
// It is hand-written because the library converts every word to []rune and
// allocates on nearly every step, which cost about 7% of indexing CPU. This
// version works on bytes in a fixed stack buffer and allocates only the
// returned string (nothing at all for a special word).
func stem(w []byte) string {
	if s, ok := stemSpecial(w); ok {
		return s
	}
	// No step makes the word longer than it came in, so a buffer of its
	// length is enough. Callers never pass more than MaxTermBytes; a longer
	// word still stems correctly, from the heap.
	var buf [MaxTermBytes]byte
	var b []byte
	if len(w) <= len(buf) {
		b = buf[:len(w)]
	} else {
		b = make([]byte, len(w))
	}
	copy(b, w)

	// Preprocess: a y at the start or after a vowel is a consonant, marked
	// Y. The test sees the marks already made, so "yy" is "Yy".
	marked := false
	for i, c := range b {
		if c == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
			marked = true
		}
	}
	r1, r2 := stemRegions(b)
	clamp := func() {
		r1 = min(r1, len(b))
		r2 = min(r2, len(b))
	}

	// Step 0 strips apostrophes, which a word of letters has none of.

	// Step 1a: sses, ied, ies, us, ss, s.
	switch {
	case hasSuffix(b, "sses"):
		b = b[:len(b)-2]
	case hasSuffix(b, "ied"), hasSuffix(b, "ies"):
		if len(b) > 4 {
			b = b[:len(b)-2] // → i
		} else {
			b = b[:len(b)-1] // → ie
		}
	case hasSuffix(b, "us"), hasSuffix(b, "ss"):
	case hasSuffix(b, "s"):
		if hasVowel(b[:len(b)-2]) {
			b = b[:len(b)-1]
		}
	}
	clamp()

	// Step 1b: eedly, ingly, edly, ing, eed, ed.
	eed, k := false, 0
	switch {
	case hasSuffix(b, "eedly"):
		eed, k = true, 5
	case hasSuffix(b, "ingly"):
		k = 5
	case hasSuffix(b, "edly"):
		k = 4
	case hasSuffix(b, "ing"):
		k = 3
	case hasSuffix(b, "eed"):
		eed, k = true, 3
	case hasSuffix(b, "ed"):
		k = 2
	}
	switch {
	case eed:
		if k <= len(b)-r1 {
			b = b[:len(b)-k+2] // → ee
			clamp()
		}
	case k > 0 && hasVowel(b[:len(b)-k]):
		// The library restores R1 and R2 after its two-part rewrite
		// (clamped to the new length), except after the short-word "e".
		o1, o2 := r1, r2
		b = b[:len(b)-k]
		clamp()
		short := false
		switch {
		case hasSuffix(b, "at"), hasSuffix(b, "bl"), hasSuffix(b, "iz"):
			b = append(b, 'e')
		case isUndoubled(b):
			b = b[:len(b)-1]
		case r1 >= len(b) && endsShortSyllable(b, len(b)):
			b = append(b, 'e')
			r1, r2 = len(b), len(b)
			short = true
		}
		if !short {
			r1, r2 = min(o1, len(b)), min(o2, len(b))
		}
	}

	// Step 1c: a final y or Y after a non-vowel, not the first letter, → i.
	if n := len(b); n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}

	// Step 2: the first suffix of the list found, if it lies in R1.
	if r := firstRule(b, &step2Rules); r != nil && len(r.suf) <= len(b)-r1 {
		n := len(b)
		switch r.act {
		case actLi:
			if n >= 3 && isLiEnding(b[n-3]) {
				b = b[:n-2]
			}
		case actOgi:
			if n >= 4 && b[n-4] == 'l' {
				b = b[:n-1] // → og
			}
		default:
			b = append(b[:n-len(r.suf)], r.rep...)
		}
		clamp()
	}

	// Step 3: likewise in R1; ative only in R2.
	if r := firstRule(b, &step3Rules); r != nil && len(r.suf) <= len(b)-r1 {
		n := len(b)
		if r.act == actR2 {
			if n-r2 >= len(r.suf) {
				b = b[:n-len(r.suf)]
			}
		} else {
			b = append(b[:n-len(r.suf)], r.rep...)
		}
		clamp()
	}

	// Step 4: delete the first suffix found if it lies in R2; ion only
	// after s or t.
	if r := firstRule(b, &step4Rules); r != nil && len(r.suf) <= len(b)-r2 {
		n := len(b)
		if r.act != actIon || (n >= 4 && (b[n-4] == 's' || b[n-4] == 't')) {
			b = b[:n-len(r.suf)]
		}
		clamp()
	}

	// Step 5: a final e in R2, or in R1 and not after a short syllable;
	// a final l after l, in R2.
	if last := len(b) - 1; r1 <= last {
		switch {
		case b[last] == 'e':
			if r2 <= last || !endsShortSyllable(b, last) {
				b = b[:last]
			}
		case b[last] == 'l' && r2 <= last && last >= 1 && b[last-1] == 'l':
			b = b[:last]
		}
	}

	if marked {
		for i, c := range b {
			if c == 'Y' {
				b[i] = 'y'
			}
		}
	}
	return string(b)
}

// stemRegions returns where R1 and R2 start: each is the region after the
// first non-vowel that follows a vowel (R2 searching within R1), or the
// empty region at the end. Words starting gener, commun or arsen have R1
// after that prefix.
func stemRegions(b []byte) (r1, r2 int) {
	switch {
	case hasPrefix(b, "gener"), hasPrefix(b, "arsen"):
		r1 = 5
	case hasPrefix(b, "commun"):
		r1 = 6
	default:
		r1 = afterVowelNonVowel(b, 0)
	}
	return r1, afterVowelNonVowel(b, r1)
}

// afterVowelNonVowel returns the index just past the first non-vowel that
// follows a vowel in b[start:], or len(b).
func afterVowelNonVowel(b []byte, start int) int {
	for j := start + 1; j < len(b); j++ {
		if isVowel(b[j-1]) && !isVowel(b[j]) {
			return j + 1
		}
	}
	return len(b)
}

// endsShortSyllable reports whether b[:i] ends in a short syllable, as the
// library defines it: for i == 2 a vowel then a non-vowel; for longer, a
// non-vowel, a vowel, then a non-vowel other than w, x or Y.
func endsShortSyllable(b []byte, i int) bool {
	switch {
	case i == 2:
		return isVowel(b[0]) && !isVowel(b[1])
	case i >= 3:
		c := b[i-1]
		return !isVowel(c) && c != 'w' && c != 'x' && c != 'Y' &&
			isVowel(b[i-2]) && !isVowel(b[i-3])
	}
	return false
}

// isUndoubled reports whether b ends in one of the doubles step 1b undoes.
func isUndoubled(b []byte) bool {
	n := len(b)
	if n < 2 || b[n-1] != b[n-2] {
		return false
	}
	switch b[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func isLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

// isVowel is the library's vowel test: a e i o u y, lowercase only, so a
// marked Y is a consonant.
func isVowel(c byte) bool {
	const vowels = 1<<('a'-'a') | 1<<('e'-'a') | 1<<('i'-'a') | 1<<('o'-'a') |
		1<<('u'-'a') | 1<<('y'-'a')
	c -= 'a'
	return c < 26 && vowels>>c&1 != 0
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// hasSuffix compares from the end, where most candidates fail at once.
func hasSuffix(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	b = b[len(b)-len(s):]
	for i := len(s) - 1; i >= 0; i-- {
		if b[i] != s[i] {
			return false
		}
	}
	return true
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

// A stemRule is one suffix of a step, with its replacement or the special
// action the step takes for it.
type stemRule struct {
	suf, rep string
	act      uint8
}

const (
	actReplace uint8 = iota
	actLi            // step 2 li: delete after a valid li-ending
	actOgi           // step 2 ogi: → og after l
	actR2            // step 3 ative: delete if in R2
	actIon           // step 4 ion: delete after s or t
)

// stemRules holds a step's suffixes grouped by their last letter, each group
// in the library's order, so the first match in a group is the library's
// first match in its whole list (suffixes ending in different letters never
// both match).
type stemRules [26][]stemRule

// firstRule returns the first of rules that b ends with, or nil.
func firstRule(b []byte, rules *stemRules) *stemRule {
	if len(b) == 0 {
		return nil
	}
	c := b[len(b)-1] - 'a'
	if c >= 26 {
		return nil // a marked Y
	}
	g := rules[c]
	for i := range g {
		if hasSuffix(b, g[i].suf) {
			return &g[i]
		}
	}
	return nil
}

func newStemRules(list ...stemRule) *stemRules {
	var r stemRules
	for _, x := range list {
		c := x.suf[len(x.suf)-1] - 'a'
		r[c] = append(r[c], x)
	}
	return &r
}

var step2Rules = *newStemRules(
	stemRule{"ational", "ate", actReplace},
	stemRule{"fulness", "ful", actReplace},
	stemRule{"iveness", "ive", actReplace},
	stemRule{"ization", "ize", actReplace},
	stemRule{"ousness", "ous", actReplace},
	stemRule{"biliti", "ble", actReplace},
	stemRule{"lessli", "less", actReplace},
	stemRule{"tional", "tion", actReplace},
	stemRule{"alism", "al", actReplace},
	stemRule{"aliti", "al", actReplace},
	stemRule{"ation", "ate", actReplace},
	stemRule{"entli", "ent", actReplace},
	stemRule{"fulli", "ful", actReplace},
	stemRule{"iviti", "ive", actReplace},
	stemRule{"ousli", "ous", actReplace},
	stemRule{"anci", "ance", actReplace},
	stemRule{"abli", "able", actReplace},
	stemRule{"alli", "al", actReplace},
	stemRule{"ator", "ate", actReplace},
	stemRule{"enci", "ence", actReplace},
	stemRule{"izer", "ize", actReplace},
	stemRule{"bli", "ble", actReplace},
	stemRule{"ogi", "", actOgi},
	stemRule{"li", "", actLi},
)

var step3Rules = *newStemRules(
	stemRule{"ational", "ate", actReplace},
	stemRule{"tional", "tion", actReplace},
	stemRule{"alize", "al", actReplace},
	stemRule{"icate", "ic", actReplace},
	stemRule{"ative", "", actR2},
	stemRule{"iciti", "ic", actReplace},
	stemRule{"ical", "ic", actReplace},
	stemRule{"ful", "", actReplace},
	stemRule{"ness", "", actReplace},
)

var step4Rules = *newStemRules(
	stemRule{"ement", "", actReplace},
	stemRule{"ance", "", actReplace},
	stemRule{"ence", "", actReplace},
	stemRule{"able", "", actReplace},
	stemRule{"ible", "", actReplace},
	stemRule{"ment", "", actReplace},
	stemRule{"ent", "", actReplace},
	stemRule{"ant", "", actReplace},
	stemRule{"ism", "", actReplace},
	stemRule{"ate", "", actReplace},
	stemRule{"iti", "", actReplace},
	stemRule{"ous", "", actReplace},
	stemRule{"ive", "", actReplace},
	stemRule{"ize", "", actReplace},
	stemRule{"ion", "", actIon},
	stemRule{"al", "", actReplace},
	stemRule{"er", "", actReplace},
	stemRule{"ic", "", actReplace},
)

// stemSpecial returns the library's fixed stem for the words it never runs
// through the steps.
func stemSpecial(w []byte) (string, bool) {
	switch string(w) {
	case "skis":
		return "ski", true
	case "skies", "sky":
		return "sky", true
	case "dying":
		return "die", true
	case "lying":
		return "lie", true
	case "tying":
		return "tie", true
	case "idly":
		return "idl", true
	case "gently":
		return "gentl", true
	case "ugly":
		return "ugli", true
	case "early":
		return "earli", true
	case "only":
		return "onli", true
	case "singly":
		return "singl", true
	case "news":
		return "news", true
	case "howe":
		return "howe", true
	case "atlas":
		return "atlas", true
	case "cosmos":
		return "cosmos", true
	case "bias":
		return "bias", true
	case "andes":
		return "andes", true
	case "inning", "innings":
		return "inning", true
	case "outing", "outings":
		return "outing", true
	case "canning", "cannings":
		return "canning", true
	case "herring", "herrings":
		return "herring", true
	case "earring", "earrings":
		return "earring", true
	case "proceed", "proceeds", "proceeded", "proceeding":
		return "proceed", true
	case "exceed", "exceeds", "exceeded", "exceeding":
		return "exceed", true
	case "succeed", "succeeds", "succeeded", "succeeding":
		return "succeed", true
	}
	return "", false
}
