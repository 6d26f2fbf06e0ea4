package pipeline

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memd-dev/memd/pipeline/parse"
)

// maxSummary is the longest lead summary, in bytes.
const maxSummary = 240

var (
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	wikiLink   = regexp.MustCompile(`\[\[(?:[^\]|]*\|)?([^\]]*)\]\]`)
	mdEmphasis = strings.NewReplacer("**", "", "__", "", "`", "")
)

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
		text = wikiLink.ReplaceAllString(text, "$1")
		text = mdLink.ReplaceAllString(text, "$1")
	}
	text = mdEmphasis.Replace(text)
	text = strings.Join(strings.Fields(text), " ")
	return leadSentences(text)
}

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
