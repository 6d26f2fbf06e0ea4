package parse

import "strings"

// Comments are text a note's author hid from readers: Obsidian's
// %% … %% and HTML's <!-- … -->, inline or over many lines. They are cut
// out before the block parser reads a note, so nothing in them becomes a
// block, a heading, a tag, a link or a summary, while every line keeps
// its number (a line wholly inside a comment reads as blank).
//
// A marker in fenced code or in a code span is code, not a comment. An
// opener that nothing closes hides nothing: a stray "%%" (say, a typo in
// "100%%") must not swallow the rest of a note.

// commentMarks are the comment openers and their closers.
var commentMarks = [...]struct{ open, close string }{{"%%", "%%"}, {"<!--", "-->"}}

// cutComments returns lines with the comments from line first on cut
// out, and the indexes of the lines it changed, in order; lines itself
// when there are none. hasOpener on the note's text says whether it is
// worth calling.
func cutComments(lines []string, first int) ([]string, []int) {
	m := commentMasker{lines: lines}
	var view []string
	var changed []int
	for i := first; i < len(lines); i++ {
		l, ok := m.line(i)
		if !ok {
			continue
		}
		if view == nil {
			view = append([]string(nil), lines...)
		}
		view[i] = l
		changed = append(changed, i)
	}
	if view == nil {
		return lines, nil
	}
	return view, changed
}

// hasOpener reports whether s holds a comment opener.
func hasOpener(s string) bool {
	return strings.Contains(s, "%%") || strings.Contains(s, "<!--")
}

// commentMasker walks a note's lines in order, tracking the comment and
// the fenced code it is in.
type commentMasker struct {
	lines   []string
	close   string // the closer of the comment open at the line's start
	fence   fence  // the fence open at the line's start, if inFence
	inFence bool
	// unclosed marks an opener kind that no later text closes, so its
	// later openers need no search either.
	unclosed [len(commentMarks)]bool
}

// line returns line i with its comments cut, and whether it changed.
func (m *commentMasker) line(i int) (string, bool) {
	l := m.lines[i]
	if m.close == "" && m.inFence {
		m.inFence = !m.fence.closedBy(indentOf(containerContent(l)))
		return l, false
	}
	if m.close == "" {
		if m.fence, m.inFence = openFence(containerContent(l)); m.inFence {
			return l, false
		}
		if start, _ := m.nextOpener(i, l, 0); start < 0 {
			return l, false
		}
	}
	var out strings.Builder
	changed := false
	for pos := 0; pos < len(l); {
		if m.close != "" {
			changed = true // even when the closer starts the line
			j := strings.Index(l[pos:], m.close)
			if j < 0 {
				return out.String(), true
			}
			pos += j + len(m.close)
			m.close = ""
			continue
		}
		start, mark := m.nextOpener(i, l, pos)
		if start < 0 {
			out.WriteString(l[pos:])
			break
		}
		out.WriteString(l[pos:start])
		changed = true
		m.close = commentMarks[mark].close
		pos = start + len(commentMarks[mark].open)
	}
	if !changed {
		return l, false
	}
	return out.String(), true
}

// nextOpener finds the next comment opener on line i at or after pos,
// outside code spans, that some later text closes: its offset and which
// mark it is, or -1.
func (m *commentMasker) nextOpener(i int, l string, pos int) (int, int) {
	for pos < len(l) {
		j := strings.IndexAny(l[pos:], "`%<")
		if j < 0 {
			break
		}
		pos += j
		if l[pos] == '`' {
			pos = skipCodeSpan(l, pos)
			continue
		}
		for k, cm := range commentMarks {
			if strings.HasPrefix(l[pos:], cm.open) && m.closes(k, i, pos+len(cm.open)) {
				return pos, k
			}
		}
		pos++
	}
	return -1, 0
}

// closes reports whether mark k's closer follows offset pos of line i.
func (m *commentMasker) closes(k, i, pos int) bool {
	if m.unclosed[k] {
		return false
	}
	c := commentMarks[k].close
	if strings.Contains(m.lines[i][pos:], c) {
		return true
	}
	for _, l := range m.lines[i+1:] {
		if strings.Contains(l, c) {
			return true
		}
	}
	m.unclosed[k] = true
	return false
}

// skipCodeSpan returns the offset after the code span opening at pos, or
// after its backticks when no run of as many closes it on the line.
func skipCodeSpan(l string, pos int) int {
	n := 1
	for pos+n < len(l) && l[pos+n] == '`' {
		n++
	}
	if j := strings.Index(l[pos+n:], l[pos:pos+n]); j >= 0 {
		return pos + n + j + n
	}
	return pos + n
}

// containerContent is a line with its indentation and any quote and list
// markers removed: where a fence inside a list item or quote starts.
func containerContent(l string) string {
	_, rest := indentOf(l)
	for rest != "" {
		if rest[0] == '>' {
			_, rest = indentOf(rest[1:])
			continue
		}
		m, ok := listMarker(rest)
		if !ok {
			break
		}
		_, rest = indentOf(m.content)
	}
	return rest
}
