package chunk

import (
	"strings"
	"unicode/utf8"

	"github.com/memd-dev/memd/pipeline/parse"
)

// unit is what the chunker places breaks between: a whole block, or, for a
// block over MaxTokens, one of its non-blank lines or a piece of a line.
type unit struct {
	block      *parse.Block
	start, end int // 1-based lines
	text       string
	tokens     int
	piece      bool // part of a split block
	midLine    bool // continues the line of the unit before it
}

// appendUnits appends the units of block b that lie within lines lo..hi.
func appendUnits(us []unit, b *parse.Block, lo, hi int, o Options) []unit {
	if b.EndLine < lo || b.StartLine > hi {
		return us
	}
	if b.StartLine >= lo && b.EndLine <= hi {
		if t := EstimateTokens(b.Text); t <= o.MaxTokens {
			return append(us, unit{block: b, start: b.StartLine, end: b.EndLine, text: b.Text, tokens: t})
		}
	}
	line := b.StartLine
	for l := range strings.SplitSeq(b.Text, "\n") {
		if line >= lo && line <= hi && strings.TrimSpace(l) != "" {
			if t := EstimateTokens(l); t <= o.MaxTokens {
				us = append(us, unit{block: b, start: line, end: line, text: l, tokens: t, piece: true})
			} else {
				us = appendLinePieces(us, b, line, l, o)
			}
		}
		line++
	}
	return us
}

// appendLinePieces splits one line over MaxTokens into pieces of about
// TargetTokens/2, cut after white space where there is some.
func appendLinePieces(us []unit, b *parse.Block, line int, l string, o Options) []unit {
	limit := max(o.TargetTokens/2, 1)
	first := true
	for l != "" {
		cut := pieceEnd(l, limit)
		p := l[:cut]
		us = append(us, unit{block: b, start: line, end: line, text: p,
			tokens: EstimateTokens(p), piece: true, midLine: !first})
		l = l[cut:]
		first = false
	}
	return us
}

// pieceEnd returns the byte length of the next piece of l: the longest
// prefix estimating at most limit tokens, shortened to end after a sentence
// when one ends in its second half, else after its last white space. It is
// at least one rune.
func pieceEnd(l string, limit int) int {
	var e estimator
	end, lastSpace, lastSentence := 0, -1, -1
	var prev rune
	for end < len(l) {
		r, size := utf8.DecodeRuneInString(l[end:])
		next := e
		next.add(r)
		if next.total() > limit && end > 0 {
			break
		}
		e = next
		end += size
		switch r {
		case ' ', '\t':
			lastSpace = end
			if prev == '.' || prev == '?' || prev == '!' || prev == ';' {
				lastSentence = end
			}
		case '。', '！', '？':
			lastSentence = end
		}
		prev = r
	}
	switch {
	case end == len(l):
		return end
	case lastSentence > end/2:
		return lastSentence
	case lastSpace > 0:
		return lastSpace
	}
	return end
}
