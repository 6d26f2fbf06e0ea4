package parse

import "strings"

// parseMarkdown finds the blocks of a Markdown note and fills the note's
// front matter, tags and links. It follows CommonMark where that is cheap
// and is lenient where it is not: anything unrecognized is a paragraph.
func parseMarkdown(lines []string, n *Note) []rawBlock {
	p := &mdParser{lines: lines}
	i := 0
	if end, ok := frontMatterEnd(lines); ok {
		p.add(FrontMatter, 0, 0, end, "")
		n.FrontMatter = parseYAML(lines[1:end])
		if len(n.FrontMatter) == 0 {
			n.FrontMatter = nil
		}
		i = end + 1
	}
	for i < len(lines) {
		i = p.block(i)
	}
	fillMarkdownMeta(n, lines, p.blocks, p.fenced)
	return p.blocks
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

// innerFence reports whether content, line start's text from column col
// on inside a list item, opens a fence; if so it closes it, records its
// lines and returns its last one.
func (p *mdParser) innerFence(start, col int, content string) (last int, ok bool) {
	f, ok := openFence(content)
	if !ok {
		return 0, false
	}
	f.indent = col
	last = closeFence(p.lines, start+1, f)
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
		f.indent = ind
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

func (p *mdParser) quote(i int) int {
	j := i + 1
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			break
		}
		ind, rest := indentOf(l)
		if ind < 4 && rest[0] == '>' {
			continue
		}
		if ind < 4 && p.interrupts(j, rest) {
			break
		}
	}
	depth, _ := stripQuotes(p.lines[i], len(p.lines[i]))
	p.add(Quote, depth, i, j-1, "")
	p.quoteFences(i, j-1, false)
	return j
}

// quoteFences records the fenced code inside the quote on lines
// start..end. A fence opens after a line's quote markers (and a list
// marker, for a list inside the quote), closes by fence.closedBy on a line
// with as many markers, and otherwise ends where those lines end, as the
// quote holding it does in CommonMark. inItem says the quote sits inside a
// list item, indented to the item's content: its lines' indentation is
// the item's, not the quote's.
func (p *mdParser) quoteFences(start, end int, inItem bool) {
	line := func(i int) string {
		if inItem {
			_, rest := indentOf(p.lines[i])
			return rest
		}
		return p.lines[i]
	}
	for i := start; i <= end; i++ {
		depth, content := stripQuotes(line(i), len(p.lines[i]))
		ind, rest := indentOf(content)
		if depth == 0 || ind >= 4 || rest == "" {
			continue
		}
		col := ind
		if m, ok := listMarker(rest); ok {
			col += len(rest) - len(m.content)
			rest = m.content
		}
		f, ok := openFence(rest)
		if !ok {
			continue
		}
		f.indent = col
		last := i
		for last < end {
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
		i = last
	}
}

// listItem reads one top-level list item: its first line, lines indented
// past its marker (nested lists, continuation paragraphs, code), lazy
// continuation lines, and blank lines inside it. A fenced code block that
// starts inside the item stays in it to its closing fence.
func (p *mdParser) listItem(i, ind int, m marker) int {
	end := i
	depth, maxDepth := 1, 1
	indents := []int{ind}
	lastBlank := false
	j := i
	if last, ok := p.innerFence(i, ind+len(strings.TrimLeft(p.lines[i], " \t"))-len(m.content), m.content); ok {
		end, j = last, last
	}
	for j++; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			lastBlank = true
			continue
		}
		lind, rest := indentOf(l)
		if lind <= ind {
			if _, ok := listMarker(rest); ok || lastBlank || p.interrupts(j, rest) {
				break
			}
		}
		lastBlank = false
		end = j
		if last, ok := p.innerFence(j, lind, rest); ok {
			end, j = last, last
			continue
		}
		if lind > ind && rest[0] == '>' {
			// A quote inside the item: its lines, to the first that is
			// blank, less indented or not quoted, may hold fences.
			k := j
			for k+1 < len(p.lines) {
				kind, krest := indentOf(p.lines[k+1])
				if kind <= ind || krest == "" || krest[0] != '>' {
					break
				}
				k++
			}
			p.quoteFences(j, k, true)
			end, j = k, k
			continue
		}
		if lind > ind {
			if nm, ok := listMarker(rest); ok {
				for len(indents) > 1 && indents[len(indents)-1] >= lind {
					indents = indents[:len(indents)-1]
				}
				if indents[len(indents)-1] < lind {
					indents = append(indents, lind)
				}
				depth = len(indents)
				maxDepth = max(maxDepth, depth)
				// A fence opening a nested item holds its lines to its
				// close, as on the item's first line.
				if last, ok := p.innerFence(j, lind+len(rest)-len(nm.content), nm.content); ok {
					end, j = last, last
				}
			}
		}
	}
	p.add(List, maxDepth, i, end, "")
	return end + 1
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
		if isBlank(l) || !strings.Contains(l, "|") {
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
