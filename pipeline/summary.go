package pipeline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memd-dev/memd/pipeline/parse"
)

// maxSummary is the longest lead summary, in bytes.
const maxSummary = 240

// leadSummary is the note's first sentence or two: from its first
// paragraph (else its first list), with Markdown links and emphasis
// flattened, at most maxSummary bytes, cut at a word when longer. A
// boilerplate block (a template's badge line) is no lead.
func leadSummary(n *parse.Note, boiler boilerplate) string {
	text := firstBlockText(n, parse.Paragraph, boiler)
	if text == "" {
		text = firstBlockText(n, parse.List, boiler)
	}
	if text == "" {
		return ""
	}
	// Only the lead survives, so the regexps need not read a whole abstract.
	text = prefixUTF8(text, 4*maxSummary)
	if strings.Contains(text, "[") {
		text = replaceLinks(replaceLinks(text, wikiLinkAt), mdLinkAt)
	}
	// leadSentences reads no further than a byte past maxSummary.
	var buf [flattened]byte
	return leadSentences(string(flatten(buf[:0], text, len(buf)-utf8.UTFMax)))
}

// flattened is how much of the lead is flattened: twice what leadSentences
// reads, and room for the last character.
const flattened = 2*maxSummary + utf8.UTFMax

// flatten drops the emphasis marks "**" and "__" and backticks and puts
// one space for each run of white space, none at the ends, stopping once
// it has written limit bytes: in one pass, where a replacer, strings.Fields
// and a join over the whole lead cost a tenth of preparing a note with a
// long first paragraph. It appends to out and returns it.
func flatten(out []byte, text string, limit int) []byte {
	space := false // white space was read after some text
	for i := 0; i < len(text) && len(out) < limit; {
		c := text[i]
		switch {
		case (c == '*' || c == '_') && i+1 < len(text) && text[i+1] == c:
			i += 2
			continue
		case c == '`':
			i++
			continue
		}
		if c < utf8.RuneSelf {
			i++
			if asciiSpace[c] {
				space = len(out) > 0
				continue
			}
			if space {
				out = append(out, ' ')
				space = false
			}
			out = append(out, c) // a byte, not a slice: most of the text
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			space = len(out) > 0
			i += size
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, text[i:i+size]...)
		i += size
	}
	return out
}

// asciiSpace is the ASCII white space of unicode.IsSpace.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func firstBlockText(n *parse.Note, k parse.Kind, boiler boilerplate) string {
	for _, b := range n.Blocks {
		if b.Kind == k && !boiler[b.ID] && strings.TrimSpace(b.Text) != "" {
			if k == parse.List {
				return strings.TrimLeft(strings.TrimSpace(b.Text), "-*+0123456789.) []xX")
			}
			return b.Text
		}
	}
	return ""
}

// leadSentences keeps the first sentence, and the second when both fit in
// maxSummary and the first is short.
func leadSentences(text string) string {
	end := sentenceEnd(text, 0)
	if end > 0 && end < 80 {
		if end2 := sentenceEnd(text, end); end2 > 0 && end2 <= maxSummary {
			end = end2
		}
	}
	if end <= 0 || end > maxSummary {
		end = len(text)
	}
	s := strings.TrimSpace(text[:end])
	if len(s) <= maxSummary {
		return s
	}
	cut := len(prefixUTF8(s, maxSummary-len("…")))
	if i := strings.LastIndexByte(s[:cut], ' '); i > maxSummary/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// sentenceEnd returns the index just past the sentence that starts at or
// after from: a '.', '!' or '?' (or a CJK full stop) followed by a space or
// the end; -1 when there is none.
func sentenceEnd(text string, from int) int {
	for i := from; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case '。', '！', '？':
			return next
		case '.', '!', '?':
			if next == len(text) || text[next] == ' ' {
				return next
			}
		}
		i = next
	}
	return -1
}

// prefixUTF8 is the longest prefix of s of at most n bytes that does not
// cut a character in two.
func prefixUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// replaceLinks replaces each link that linkAt finds in text, left to
// right and not overlapping, by its text: what a regexp's ReplaceAllString
// with "$1" does, without its machinery (a tenth of preparing a Dendron
// note, whose leads are full of wikilinks).
func replaceLinks(text string, linkAt func(s string) (label string, end int, ok bool)) string {
	var out strings.Builder
	done := 0 // text[:done] is in out
	for i := 0; ; {
		j := strings.IndexAny(text[i:], "[!")
		if j < 0 {
			break
		}
		i += j
		label, end, ok := linkAt(text[i:])
		if !ok {
			i++
			continue
		}
		out.WriteString(text[done:i])
		out.WriteString(label)
		i += end
		done = i
	}
	if done == 0 {
		return text
	}
	out.WriteString(text[done:])
	return out.String()
}

// wikiLinkAt reads a wikilink at the start of s, `[[target]]` or
// `[[target|label]]` (the regexp `\[\[(?:[^\]|]*\|)?([^\]]*)\]\]`),
// and returns its label (its target when it has none) and its length.
func wikiLinkAt(s string) (label string, end int, ok bool) {
	if !strings.HasPrefix(s, "[[") {
		return "", 0, false
	}
	k := strings.IndexByte(s[2:], ']') + 2
	if k < 2 || k+1 >= len(s) || s[k+1] != ']' {
		return "", 0, false
	}
	label = s[2:k]
	if _, alias, found := strings.Cut(label, "|"); found {
		label = alias
	}
	return label, k + 2, true
}

// mdLinkAt reads a Markdown link or image at the start of s,
// `[label](url)` or `![label](url)` (the regexp
// `!?\[([^\]]*)\]\([^)]*\)`), and returns its label and its length.
func mdLinkAt(s string) (label string, end int, ok bool) {
	p := 0
	if strings.HasPrefix(s, "!") {
		p = 1
	}
	if p >= len(s) || s[p] != '[' {
		return "", 0, false
	}
	k := strings.IndexByte(s[p+1:], ']') + p + 1
	if k < p+1 || k+1 >= len(s) || s[k+1] != '(' {
		return "", 0, false
	}
	m := strings.IndexByte(s[k+2:], ')') + k + 2
	if m < k+2 {
		return "", 0, false
	}
	return s[p+1 : k], m + 1, true
}
