package parse

import "strings"

// parseOrg finds the blocks of an Org note: headings with their tags,
// #+BEGIN_X ... #+END_X blocks, drawers, lists, tables and paragraphs. The
// leading #+KEY: lines are its front matter.
func parseOrg(lines []string, n *Note) []rawBlock {
	p := &orgParser{lines: lines}
	i := 0
	for i < len(lines) {
		if _, _, ok := orgKeyword(lines[i]); !ok {
			break
		}
		i++
	}
	if i > 0 {
		p.blocks = append(p.blocks, rawBlock{kind: FrontMatter, start: 0, end: i - 1})
	}
	for i < len(lines) {
		i = p.block(i)
	}
	p.meta(n)
	return p.blocks
}

type orgParser struct {
	lines  []string
	blocks []rawBlock
	tags   set
}

func (p *orgParser) add(k Kind, level, start, end int) *rawBlock {
	p.blocks = append(p.blocks, rawBlock{kind: k, level: level, start: start, end: end})
	return &p.blocks[len(p.blocks)-1]
}

func (p *orgParser) block(i int) int {
	l := p.lines[i]
	if isBlank(l) {
		return i + 1
	}
	if level, title, tags, ok := orgHeading(l); ok {
		p.add(Heading, level, i, i).title = title
		for _, t := range tags {
			p.tags.add(strings.ToLower(t))
		}
		return i + 1
	}
	ind, rest := indentOf(l)
	if name, lang, ok := orgBegin(rest); ok {
		end := orgBlockEnd(p.lines, i+1, name)
		kind := Paragraph
		switch name {
		case "src", "example", "export":
			kind = Code
		case "quote", "verse":
			kind = Quote
		}
		p.add(kind, 0, i, end).lang = lang
		return end + 1
	}
	if isOrgDrawer(rest) {
		if end, ok := orgDrawerEnd(p.lines, i+1); ok {
			p.add(Drawer, 0, i, end)
			return end + 1
		}
	}
	if len(rest) >= 5 && strings.Trim(strings.TrimRight(rest, " \t"), "-") == "" {
		p.add(ThematicBreak, 0, i, i)
		return i + 1
	}
	if rest[0] == '|' {
		j := i + 1
		for j < len(p.lines) {
			if _, r := indentOf(p.lines[j]); r == "" || r[0] != '|' {
				break
			}
			j++
		}
		p.add(Table, 0, i, j-1)
		return j
	}
	if orgListMarker(rest, ind) {
		return p.listItem(i, ind)
	}
	return p.paragraph(i)
}

// starts reports whether line j starts a block that ends a paragraph.
func (p *orgParser) starts(j int) bool {
	l := p.lines[j]
	if _, _, _, ok := orgHeading(l); ok {
		return true
	}
	ind, rest := indentOf(l)
	if _, _, ok := orgBegin(rest); ok {
		return true
	}
	return rest != "" && (rest[0] == '|' || isOrgDrawer(rest) || orgListMarker(rest, ind))
}

func (p *orgParser) paragraph(i int) int {
	j := i + 1
	for j < len(p.lines) && !isBlank(p.lines[j]) && !p.starts(j) {
		j++
	}
	p.add(Paragraph, 0, i, j-1)
	return j
}

// listItem reads one top-level item: lines indented past its marker,
// blank lines inside it, and #+BEGIN blocks that start inside it.
func (p *orgParser) listItem(i, ind int) int {
	end := i
	lastBlank := false
	for j := i + 1; j < len(p.lines); j++ {
		l := p.lines[j]
		if isBlank(l) {
			if lastBlank {
				break // two blank lines end a list in Org
			}
			lastBlank = true
			continue
		}
		lind, rest := indentOf(l)
		if _, _, _, ok := orgHeading(l); ok {
			break
		}
		if lind <= ind && (lastBlank || p.starts(j)) {
			break
		}
		lastBlank = false
		end = j
		if name, _, ok := orgBegin(rest); ok {
			end = orgBlockEnd(p.lines, j+1, name)
			j = end
		}
	}
	p.add(List, 1, i, end)
	return end + 1
}

func (p *orgParser) meta(n *Note) {
	var links set
	for _, b := range p.blocks {
		switch b.kind {
		case FrontMatter:
			n.FrontMatter = map[string]any{}
			for _, l := range p.lines[b.start : b.end+1] {
				key, val, _ := orgKeyword(l)
				n.FrontMatter[key] = val
			}
			continue
		case Code, Drawer:
			continue
		}
		for _, l := range p.lines[b.start : b.end+1] {
			if key, val, ok := orgKeyword(l); ok && key == "title" && n.Title == "" {
				n.Title = val
			}
			scanOrgLinks(l, &links)
		}
	}
	if n.FrontMatter != nil {
		if t, ok := n.FrontMatter["title"].(string); ok {
			n.Title = t
		}
		for _, t := range strings.FieldsFunc(scalarString(n.FrontMatter["filetags"]), func(r rune) bool { return r == ':' || r == ' ' }) {
			p.tags.add(strings.ToLower(t))
		}
	}
	n.Tags, n.Links = p.tags.list, links.list
}

// orgKeyword reads "#+KEY: value"; #+BEGIN/#+END lines are not keywords.
func orgKeyword(l string) (key, val string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), "#+")
	if !ok {
		return "", "", false
	}
	k, v, ok := strings.Cut(rest, ":")
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return "", "", false
	}
	k = strings.ToLower(k)
	if strings.HasPrefix(k, "begin_") || strings.HasPrefix(k, "end_") {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

var orgTodo = map[string]bool{"TODO": true, "DONE": true, "NEXT": true, "WAITING": true, "WAIT": true, "HOLD": true, "CANCELLED": true, "CANCELED": true}

// orgHeading reads "** TODO [#A] Title :tag1:tag2:".
func orgHeading(l string) (level int, title string, tags []string, ok bool) {
	for level < len(l) && l[level] == '*' {
		level++
	}
	if level == 0 || level >= len(l) || (l[level] != ' ' && l[level] != '\t') {
		return 0, "", nil, false
	}
	fields := strings.Fields(l[level:])
	if len(fields) > 0 {
		if last := fields[len(fields)-1]; len(last) > 2 && last[0] == ':' && last[len(last)-1] == ':' {
			tags = strings.FieldsFunc(last, func(r rune) bool { return r == ':' })
			fields = fields[:len(fields)-1]
		}
	}
	if len(fields) > 0 && orgTodo[fields[0]] {
		fields = fields[1:]
	}
	if len(fields) > 0 && len(fields[0]) == 4 && strings.HasPrefix(fields[0], "[#") && fields[0][3] == ']' {
		fields = fields[1:]
	}
	return level, strings.Join(fields, " "), tags, true
}

// orgBegin reads "#+BEGIN_NAME args" into its lower-cased name and, for
// source blocks, the language.
func orgBegin(rest string) (name, lang string, ok bool) {
	if len(rest) < 9 || !strings.EqualFold(rest[:8], "#+begin_") {
		return "", "", false
	}
	f := strings.Fields(rest[8:])
	if len(f) == 0 {
		return "", "", false
	}
	name = strings.ToLower(f[0])
	if name == "src" && len(f) > 1 {
		lang = f[1]
	}
	return name, lang, true
}

// orgBlockEnd returns the #+END_NAME line, or the last line when the block
// is never closed.
func orgBlockEnd(lines []string, from int, name string) int {
	want := "#+end_" + name
	for j := from; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if len(t) >= len(want) && strings.EqualFold(t[:len(want)], want) {
			return j
		}
	}
	return max(len(lines)-1, from-1)
}

// isOrgDrawer is a ":NAME:" line alone, as :PROPERTIES: or :LOGBOOK:.
func isOrgDrawer(rest string) bool {
	t := strings.TrimRight(rest, " \t")
	if len(t) < 3 || t[0] != ':' || t[len(t)-1] != ':' {
		return false
	}
	name := t[1 : len(t)-1]
	return !strings.ContainsAny(name, ": \t") && !strings.EqualFold(name, "end")
}

func orgDrawerEnd(lines []string, from int) (int, bool) {
	for j := from; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.EqualFold(t, ":end:") {
			return j, true
		}
		if _, _, _, ok := orgHeading(lines[j]); ok {
			break
		}
	}
	return 0, false
}

// orgListMarker: "- ", "+ ", "1. ", "1) ", and "* " only when indented
// (at column 0 a star starts a heading).
func orgListMarker(rest string, ind int) bool {
	if rest[0] == '*' && ind == 0 {
		return false
	}
	_, ok := listMarker(rest)
	return ok
}

// scanOrgLinks collects [[target]] and [[target][description]] links to
// files and ids; web links are not note links.
func scanOrgLinks(l string, links *set) {
	for {
		i := strings.Index(l, "[[")
		if i < 0 {
			return
		}
		l = l[i+2:]
		j := strings.Index(l, "]")
		if j < 0 {
			return
		}
		target := l[:j]
		l = l[j:]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		target = strings.TrimPrefix(target, "file:")
		if k := strings.Index(target, "::"); k >= 0 {
			target = target[:k]
		}
		links.add(strings.TrimSpace(target))
	}
}
