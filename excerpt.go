package memd

import "strings"

// Excerpt is how much of a hit's text a recall sends when it is asked for
// the hit's first lines only (RecallRequest.Excerpt): the first Lines
// lines that are not blank, each cut to Width runes. Zero fields take
// DefaultExcerpt's.
type Excerpt struct {
	Lines int `json:"lines,omitempty"`
	Width int `json:"width,omitempty"`
}

// DefaultExcerpt is four lines of at most 100 runes, what memctl recall
// prints under each hit; MaxExcerpt bounds what a request may ask for.
var (
	DefaultExcerpt = Excerpt{Lines: 4, Width: 100}
	MaxExcerpt     = Excerpt{Lines: 1000, Width: 10000}
)

func (e *Excerpt) validate() error {
	switch {
	case e == nil:
		return nil
	case e.Lines < 0 || e.Lines > MaxExcerpt.Lines:
		return badRequest(`"excerpt.lines" is %d; send a number from 1 to %d, or leave it out for %d`, e.Lines, MaxExcerpt.Lines, DefaultExcerpt.Lines)
	case e.Width < 0 || e.Width > MaxExcerpt.Width:
		return badRequest(`"excerpt.width" is %d; send a number from 1 to %d, or leave it out for %d`, e.Width, MaxExcerpt.Width, DefaultExcerpt.Width)
	}
	return nil
}

// Cut gives each hit its excerpt in place of its text and summary.
func (e Excerpt) Cut(hits []Hit) {
	for i := range hits {
		hits[i].Excerpt = e.Of(hits[i].Text)
		hits[i].Text, hits[i].Summary = "", ""
	}
}

// Of is the excerpt of text: its first non-blank lines without trailing
// space, each cut to the width (its last rune then "…"), and " …" after
// the last when more non-blank lines follow.
func (e Excerpt) Of(text string) []string {
	lines, width := e.Lines, e.Width
	if lines == 0 {
		lines = DefaultExcerpt.Lines
	}
	if width == 0 {
		width = DefaultExcerpt.Width
	}
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(out) == lines {
			out[len(out)-1] += " …"
			break
		}
		out = append(out, cutRunes(line, width))
	}
	return out
}

// cutRunes returns line cut to width runes, the last one "…", or whole
// when it fits. It walks no further than width runes: a chunk's line can
// be a whole abstract.
func cutRunes(line string, width int) string {
	n, cut := 0, 0
	for i := range line {
		switch n {
		case width - 1:
			cut = i
		case width:
			return line[:cut] + "…"
		}
		n++
	}
	return line
}
