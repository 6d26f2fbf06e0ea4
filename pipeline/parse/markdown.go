package parse

import (
	"slices"
	"strings"
)

// parseMarkdown finds the blocks of a Markdown note and fills the note's
// front matter, tags and links. It follows CommonMark where that is cheap
// and is lenient where it is not: anything unrecognized is a paragraph.
// It reads the note (src, split into lines) with its comments cut out and
// returns those lines (lines itself when it has none) and the indexes of
// the lines cut. The blocks are p's, which it resets: they hold until p
// parses again.
func (p *mdParser) parse(src string, lines []string, n *Note) (raws []rawBlock, view []string, cut []int) {
	i := 0
	end, hasFrontMatter := frontMatterEnd(lines)
	if hasFrontMatter {
		n.FrontMatter = parseYAML(lines[1:end])
		if len(n.FrontMatter) == 0 {
			n.FrontMatter = nil
		}
		i = end + 1
	}
	if i < len(lines) && hasOpener(src) {
		lines, cut = cutComments(lines, i)
	}
	// About one block in four lines on a real vault: sized so, a first
	// note's blocks rarely grow.
	p.lines, p.blocks, p.fenced = lines, slices.Grow(p.blocks[:0], len(lines)/4+1), p.fenced[:0]
	if hasFrontMatter {
		p.add(FrontMatter, 0, 0, end, "")
	}
	for i < len(lines) {
		i = p.block(i)
	}
	fillMarkdownMeta(n, lines, p.blocks, p.fenced)
	return p.blocks, lines, cut
}

type mdParser struct {
	lines  []string
	blocks []rawBlock
	// fenced holds the fenced code inside list items and quotes, in line
	// order, so the tag and link scan skips what the parser read as code.
	fenced []lineSpan
}

// lineSpan is lines start..end, 0-based and inclusive.
type lineSpan struct{ start, end int }

// innerFence reports whether content, line start's text inside a list
// item whose content starts at column col, opens a fence; if so it closes
// it, records its lines and returns its last one. The fence ends at its
// closing line or before the first line indented less than col, which
// closes the item holding it.
func (p *mdParser) innerFence(start, col int, content string) (last int, ok bool) {
	f, ok := openFence(content)
	if !ok {
		return 0, false
	}
	f.indent = col
	last = start
	for j := start + 1; j < len(p.lines); j++ {
		ind, rest := indentOf(p.lines[j])
		if rest == "" {
			continue
		}
		if ind < col {
			break
		}
		last = j
		if f.closedBy(ind, rest) {
			break
		}
	}
	p.fenced = append(p.fenced, lineSpan{start, last})
	return last, true
}

func (p *mdParser) add(k Kind, level, start, end int, lang string) *rawBlock {
	p.blocks = append(p.blocks, rawBlock{kind: k, level: level, start: start, end: end, lang: lang})
	return &p.blocks[len(p.blocks)-1]
}

// block reads the block starting at line i (or skips a blank line) and
// returns the line after it.
func (p *mdParser) block(i int) int {
	l := p.lines[i]
	if isBlank(l) {
		return i + 1
	}
	ind, rest := indentOf(l)
	if ind >= 4 {
		return p.indentedCode(i)
	}
	if f, ok := openFence(rest); ok {
		end := closeFence(p.lines, i+1, f)
		p.add(Code, 0, i, end, f.lang)
		return end + 1
	}
	if level, title, ok := atxHeading(rest); ok {
		p.add(Heading, level, i, i, "").title = title
		return i + 1
	}
	if isThematicBreak(rest) {
		p.add(ThematicBreak, 0, i, i, "")
		return i + 1
	}
	if rest[0] == '>' {
		return p.quote(i)
	}
	if m, ok := listMarker(rest); ok {
		return p.listItem(i, ind, m)
	}
	if kind, ok := htmlStart(rest, false); ok {
		end := htmlEnd(p.lines, i, kind)
		p.add(HTML, 0, i, end, "")
		return end + 1
	}
	if p.tableStart(i) {
		return p.table(i)
	}
	return p.paragraph(i)
}

func (p *mdParser) indentedCode(i int) int {
	end := i
	for j := i + 1; j < len(p.lines); j++ {
		if isBlank(p.lines[j]) {
			continue
		}
		if ind, _ := indentOf(p.lines[j]); ind < 4 {
			break
		}
		end = j
	}
	p.add(Code, 0, i, end, "")
	return end + 1
}

// paragraph reads lines until a blank line or a line that starts another
// block; a setext underline turns the lines above it into a heading.
func (p *mdParser) paragraph(i int) int {
	j := i + 1
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			break
		}
		ind, rest := indentOf(l)
		if ind < 4 {
			if level := setextLevel(rest); level > 0 {
				title := cleanTitle(strings.TrimSpace(strings.Join(trimAll(p.lines[i:j]), " ")))
				p.add(Heading, level, i, j, "").title = title
				return j + 1
			}
			if p.interrupts(j, rest) {
				break
			}
		}
	}
	p.add(Paragraph, 0, i, j-1, "")
	return j
}

// interrupts reports whether line j (indent under 4, rest after it) starts
// a block that may interrupt a paragraph.
func (p *mdParser) interrupts(j int, rest string) bool {
	if _, ok := openFence(rest); ok {
		return true
	}
	if _, _, ok := atxHeading(rest); ok {
		return true
	}
	if isThematicBreak(rest) || rest[0] == '>' {
		return true
	}
	if m, ok := listMarker(rest); ok && !m.empty && (!m.ordered || m.number == 1) {
		return true
	}
	if _, ok := htmlStart(rest, true); ok {
		return true
	}
	return p.tableStart(j)
}

// quote reads a top-level block quote: its marked lines, and lazy
// continuation lines while the innermost open block is a paragraph, as
// CommonMark reads them. A blank line, or an unmarked line that starts a
// block or follows code, a heading or an empty quote line, ends it.
func (p *mdParser) quote(i int) int {
	end := i
	tip := otherTip
	for j := i; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			break
		}
		ind, rest := indentOf(l)
		if ind >= 4 || rest[0] != '>' {
			if tip != textTip || p.endsLazy(ind, rest) {
				break
			}
			end = j
			continue
		}
		if last, ok := p.quoteFence(j, len(p.lines)-1, false); ok {
			end, j, tip = last, last, otherTip
			continue
		}
		_, content := stripQuotes(l, len(l))
		tip = tipAfter(tip, content)
		end = j
	}
	depth, _ := stripQuotes(p.lines[i], len(p.lines[i]))
	p.add(Quote, depth, i, end, "")
	return end + 1
}

// tip is what kind of block a container's last line left open, which
// decides whether the next line may continue it lazily.
type tip int

const (
	otherTip tip = iota // code, a heading, a break, a blank line: no lazy line
	textTip             // a paragraph: an unmarked line continues it
)

// tipAfter is the tip once a container line's content (markers removed)
// is read, after tip before it. A "---" under a paragraph is its setext
// underline and closes it.
func tipAfter(before tip, content string) tip {
	ind, rest := indentOf(content)
	for rest != "" && rest[0] == '>' && ind < 4 {
		ind, rest = indentOf(rest[1:])
	}
	for ind < 4 && rest != "" {
		m, ok := listMarker(rest)
		if !ok {
			break
		}
		ind, rest = indentOf(m.content)
	}
	switch {
	case rest == "":
		return otherTip
	case ind >= 4:
		return before // indented code, or a paragraph's continuation
	case before == textTip && setextLevel(rest) > 0:
		return otherTip
	}
	if _, _, ok := atxHeading(rest); ok || isThematicBreak(rest) {
		return otherTip
	}
	if _, ok := htmlStart(rest, before == textTip); ok {
		return otherTip
	}
	return textTip
}

// endsLazy reports whether a line outside a container (indent ind, rest
// after it) starts a block, so it cannot continue the container's
// paragraph lazily. Unlike interrupts, any list marker counts: the list
// would start at the outer level, where no paragraph is open.
func (p *mdParser) endsLazy(ind int, rest string) bool {
	if ind >= 4 {
		return false
	}
	if _, ok := openFence(rest); ok {
		return true
	}
	if _, _, ok := atxHeading(rest); ok {
		return true
	}
	if isThematicBreak(rest) || rest[0] == '>' {
		return true
	}
	if _, ok := listMarker(rest); ok {
		return true
	}
	_, ok := htmlStart(rest, true)
	return ok
}

// quoteFence reports whether line i of a quote opens a fence after its
// quote markers (and a list marker, for a list inside the quote); if so
// it records the fence and returns its last line. The fence closes by
// fence.closedBy on a line with as many markers, and otherwise ends where
// those lines end (at limit at the latest), as the quote holding it does
// in CommonMark. inItem says the quote sits inside a list item, indented
// to the item's content: its lines' indentation is the item's, not the
// quote's.
func (p *mdParser) quoteFence(i, limit int, inItem bool) (int, bool) {
	line := func(i int) string {
		if inItem {
			_, rest := indentOf(p.lines[i])
			return rest
		}
		return p.lines[i]
	}
	depth, content := stripQuotes(line(i), len(p.lines[i]))
	ind, rest := indentOf(content)
	if depth == 0 || ind >= 4 || rest == "" {
		return 0, false
	}
	col := 0 // the quote's content column
	if m, ok := listMarker(rest); ok {
		col = ind + len(rest) - len(m.content)
		rest = m.content
	}
	f, ok := openFence(rest)
	if !ok {
		return 0, false
	}
	f.indent = col
	last := i
	for last < limit {
		d, c := stripQuotes(line(last+1), depth)
		if d < depth {
			break
		}
		last++
		if f.closedBy(indentOf(c)) {
			break
		}
	}
	p.fenced = append(p.fenced, lineSpan{i, last})
	return last, true
}

// quoteFences records the fenced code inside the quote on lines
// start..end (see quoteFence).
func (p *mdParser) quoteFences(start, end int, inItem bool) {
	for i := start; i <= end; i++ {
		if last, ok := p.quoteFence(i, end, inItem); ok {
			i = last
		}
	}
}

// listItem reads one top-level list item as CommonMark does: its first
// line, the lines indented to its content column (nested items, further
// paragraphs, code), blank lines between them, and lazy continuation
// lines while a paragraph is open. A fenced code block in the item holds
// its lines to its closing fence or to the first line indented less than
// the item it sits in.
func (p *mdParser) listItem(i, ind int, m marker) int {
	var colBuf [8]int // content columns of the open items, outermost first
	cols := append(colBuf[:0], contentColumn(p.lines[i], ind, m))
	maxDepth := 1
	end := i
	tip := itemTip(p.lines[i], ind, m)
	if last, ok := p.innerFence(i, cols[0], m.content); ok {
		end, tip = last, otherTip
	}
	if m.empty && (end+1 >= len(p.lines) || isBlank(p.lines[end+1])) {
		// An item may begin with at most one blank line: this one is empty.
		p.add(List, 1, i, i, "")
		return i + 1
	}
	for j := end + 1; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			tip = otherTip
			continue
		}
		lind, rest := indentOf(l)
		if lind < cols[0] {
			if tip != textTip || p.endsLazy(lind, rest) {
				break
			}
			end = j // a lazy continuation line
			continue
		}
		// A line left of a nested item's content closes that item unless
		// it continues the item's paragraph lazily.
		for len(cols) > 1 && lind < cols[len(cols)-1] && (tip != textTip || p.endsLazy(0, rest)) {
			cols = cols[:len(cols)-1]
		}
		end = j
		col := cols[len(cols)-1]
		if lind-col >= 4 {
			continue // indented code, or a paragraph's continuation
		}
		if last, ok := p.innerFence(j, col, rest); ok {
			end, j, tip = last, last, otherTip
			continue
		}
		if rest[0] == '>' {
			// A quote inside the item: its lines, to the first that is
			// blank, less indented or not quoted, may hold fences.
			k := j
			for k+1 < len(p.lines) {
				kind, krest := indentOf(p.lines[k+1])
				if kind < cols[0] || krest == "" || krest[0] != '>' {
					break
				}
				k++
			}
			p.quoteFences(j, k, true)
			tip = otherTip
			for q := j; q <= k; q++ {
				_, qrest := indentOf(p.lines[q])
				_, content := stripQuotes(qrest, len(qrest))
				tip = tipAfter(tip, content)
			}
			if len(p.fenced) > 0 && p.fenced[len(p.fenced)-1].end == k {
				tip = otherTip
			}
			end, j = k, k
			continue
		}
		if tip == textTip && setextLevel(rest) > 0 {
			tip = otherTip
			continue
		}
		if nm, ok := listMarker(rest); ok {
			cols = append(cols, contentColumn(l, lind, nm))
			maxDepth = max(maxDepth, len(cols))
			tip = itemTip(l, lind, nm)
			// A fence opening a nested item holds its lines to its
			// close, as on the item's first line.
			if last, ok := p.innerFence(j, cols[len(cols)-1], nm.content); ok {
				end, j, tip = last, last, otherTip
			}
			continue
		}
		tip = tipAfter(tip, rest)
	}
	p.add(List, maxDepth, i, end, "")
	return end + 1
}

// itemTip is the tip a list item's first line leaves: code when five or
// more spaces follow its marker, else what its content opens.
func itemTip(l string, ind int, m marker) tip {
	_, rest := indentOf(l)
	if !m.empty && contentColumn(l, ind, m) < ind+len(rest)-len(m.content) {
		return otherTip
	}
	return tipAfter(otherTip, m.content)
}

// contentColumn is the column where the content of the list item whose
// marker m opens line l (indented ind) starts: after the marker and the
// spaces behind it, or one column after the marker when the item starts
// empty or with indented code (five or more spaces).
func contentColumn(l string, ind int, m marker) int {
	_, rest := indentOf(l)
	after := strings.TrimRight(rest[:len(rest)-len(m.content)], " \t")
	markerEnd := ind + len(after)
	spaces := spaceWidth(rest[len(after):len(rest)-len(m.content)], markerEnd)
	if m.empty || spaces > 4 {
		return markerEnd + 1
	}
	return markerEnd + spaces
}

// spaceWidth is the width of the spaces and tabs ws starting at column
// col, a tab reaching the next multiple of 4.
func spaceWidth(ws string, col int) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		if ws[i] == '\t' {
			w += 4 - (col+w)%4
		} else {
			w++
		}
	}
	return w
}

func (p *mdParser) tableStart(i int) bool {
	if i+1 >= len(p.lines) || !strings.Contains(p.lines[i], "|") {
		return false
	}
	return isDelimiterRow(p.lines[i+1])
}

func (p *mdParser) table(i int) int {
	j := i + 2
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			break
		}
		// A row that opens with '|' stays a row even if it reads like
		// "| - item |"; other lines may start a block.
		if ind, rest := indentOf(l); ind < 4 && rest[0] != '|' && p.interrupts(j, rest) {
			break
		}
	}
	p.add(Table, 0, i, j-1, "")
	return j
}

func trimAll(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// frontMatterEnd finds the closing line of YAML front matter opened by
// "---" on the first line. Without a closing "---" or "..." there is no
// front matter, and the first line is read as a thematic break.
func frontMatterEnd(lines []string) (int, bool) {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return 0, false
	}
	for j := 1; j < len(lines); j++ {
		if l := strings.TrimRight(lines[j], " \t"); l == "---" || l == "..." {
			return j, true
		}
	}
	return 0, false
}
