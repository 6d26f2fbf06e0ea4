package chunk

import (
	"strings"

	"github.com/memd-dev/memd/pipeline/parse"
)

// Break-point scores: the reward for ending a chunk between two units. They
// are on the scale of the size costs in cut, which is what makes them
// trade against size: a heading break outweighs a chunk's fixed cost, so a
// section that is big enough stands alone, while a run of tiny sections is
// still merged by the penalty for chunks under MinTokens.
const (
	scoreH6         = 10 // before a heading: H1 18, H2 16, H3 14, H4 12, H5 11, H6 10
	scoreAfterBreak = 9  // after a thematic break
	scoreBeforeRule = 7  // before a thematic break
	scoreCode       = 6  // before or after a code block
	scoreParagraph  = 5  // between prose blocks
	scoreList       = 4  // between a list and something else
	scoreLooseItem  = 3  // between list items with a blank line between
	scoreItem       = 2  // between list items
	scoreIntro      = 1  // after a paragraph that ends with ':' (it introduces what follows)
	scoreInBlock    = 0  // between lines of a block split for size
	scoreMidLine    = -8 // inside a line over MaxTokens
	scoreOrphan     = -30
)

// breakScore scores a break between units a and b (b directly follows a).
func breakScore(a, b *unit) int {
	if a.block == b.block {
		switch {
		case b.midLine:
			return scoreMidLine
		case b.start-a.end > 1:
			return scoreInBlock + 2
		case isListLine(b.text):
			return scoreInBlock + 1
		}
		return scoreInBlock
	}
	ka, kb := a.block.Kind, b.block.Kind
	switch {
	case ka == parse.Heading:
		return scoreOrphan // a heading stays with what it heads
	case kb == parse.Heading:
		return headingScore(b.block.Level)
	case ka == parse.ThematicBreak:
		return scoreAfterBreak
	case kb == parse.ThematicBreak:
		return scoreBeforeRule
	case endsWithColon(a.text) && ka == parse.Paragraph:
		return scoreIntro
	case ka == parse.Code || kb == parse.Code:
		return scoreCode
	case ka == parse.List && kb == parse.List:
		if b.start-a.end > 1 {
			return scoreLooseItem
		}
		return scoreItem
	case ka == parse.List || kb == parse.List:
		return scoreList
	}
	return scoreParagraph
}

func headingScore(level int) int {
	switch {
	case level <= 1:
		return 18
	case level <= 4:
		return 20 - 2*level
	}
	return scoreH6 + 6 - min(level, 6)
}

func endsWithColon(s string) bool {
	return strings.HasSuffix(strings.TrimRight(s, " \t"), ":")
}

func isListLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 2 {
		return false
	}
	if (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
