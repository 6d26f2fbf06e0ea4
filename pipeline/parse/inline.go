package parse

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fillMarkdownMeta sets the title, tags and links of a Markdown note from
// its front matter and the text of its prose blocks, skipping the fenced
// code the parser found inside them (fenced, in line order).
func fillMarkdownMeta(n *Note, lines []string, blocks []rawBlock, fenced []lineSpan) {
	var tags, links set
	if fm := n.FrontMatter; fm != nil {
		if t, ok := fm["title"]; ok {
			n.Title = strings.TrimSpace(scalarString(t))
		}
		n.Aliases = aliasesOf(fm)
		for _, key := range []string{"tags", "tag", "keywords"} {
			for _, t := range listOf(fm[key]) {
				tags.add(normalizeTag(t))
			}
		}
	}
	// Dendron writes [[label|target]], Obsidian [[target|alias]]; a
	// Dendron note is known by its front matter.
	labelFirst := n.FrontMatter != nil && n.FrontMatter["id"] != nil &&
		(n.FrontMatter["updated"] != nil || n.FrontMatter["created"] != nil)
	for _, b := range blocks {
		switch b.kind {
		case Paragraph, Heading, List, Quote, Table:
		default:
			continue
		}
		for i := b.start; i <= b.end; i++ {
			for len(fenced) > 0 && fenced[0].end < i {
				fenced = fenced[1:]
			}
			if len(fenced) > 0 && fenced[0].start <= i {
				i = fenced[0].end
				continue
			}
			scanInline(lines[i], &tags, &links, labelFirst)
		}
	}
	n.Tags, n.Links = tags.list, links.list
}

// scanInline collects #tags and [[wikilinks]] from one line of prose,
// skipping `code spans`.
func scanInline(l string, tags, links *set, labelFirst bool) {
	for i := 0; i < len(l); {
		if !inlineMark[l[i]] { // most bytes: a loop over every line of prose
			i++
			continue
		}
		switch l[i] {
		case '`':
			i = skipCodeSpan(l, i)
			continue
		case '#':
			if i == 0 || isSpaceBefore(l, i) {
				if t, n := readTag(l[i+1:]); n > 0 {
					tags.add(t)
					i += 1 + n
					continue
				}
			}
		case '[':
			if strings.HasPrefix(l[i:], "[[") {
				if j := strings.Index(l[i+2:], "]]"); j >= 0 {
					links.add(wikiTarget(l[i+2:i+2+j], labelFirst))
					i += 2 + j + 2
					continue
				}
			}
		}
		i++
	}
}

// inlineMark holds the bytes scanInline acts on.
var inlineMark = [256]bool{'`': true, '#': true, '[': true}

func isSpaceBefore(l string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(l[:i])
	return unicode.IsSpace(r)
}

// readTag reads a tag after '#': letters, digits and _ - / . with at least
// one non-digit, so "#123" (an issue number) and "#" alone are not tags.
// Trailing punctuation (".", "-", "/") is not part of it.
func readTag(s string) (string, int) {
	n := 0
	letter := false
scan:
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		switch {
		case unicode.IsLetter(r) || r == '_':
			letter = true
		case unicode.IsDigit(r), unicode.IsMark(r):
		case (r == '-' || r == '/' || r == '.') && n > 0:
		default:
			break scan
		}
		n += size
	}
	t := strings.TrimRight(s[:n], "-/.")
	if !letter || t == "" {
		return "", 0
	}
	return strings.ToLower(t), n
}

// wikiTarget is the note a [[...]] names: without its alias, #anchor or
// ^block reference, and without a dendron://vault/ prefix. In a table the
// alias's pipe is escaped ("[[x\\|alias]]"), or it would end the cell.
func wikiTarget(s string, labelFirst bool) string {
	if a, b, ok := strings.Cut(s, "|"); ok {
		a = strings.TrimSuffix(a, "\\")
		s = a
		if labelFirst {
			s = b
		}
	}
	if rest, ok := strings.CutPrefix(s, "dendron://"); ok {
		if _, note, ok := strings.Cut(rest, "/"); ok {
			s = note
		}
	}
	if i := strings.IndexAny(s, "#^"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func normalizeTag(t string) string {
	return strings.ToLower(strings.TrimLeft(strings.TrimSpace(t), "#"))
}

// set is an ordered set of non-empty strings. A note has a few tags and
// links: they are looked up in the list until there are many, and only
// then in a map (one per note was most of the allocations of a note with
// tags).
type set struct {
	list []string
	seen map[string]bool // once the list is past maxListedSet
}

const maxListedSet = 16

func (s *set) add(v string) {
	if v == "" || s.has(v) {
		return
	}
	if s.seen == nil && len(s.list) == maxListedSet {
		s.seen = make(map[string]bool, 2*maxListedSet)
		for _, x := range s.list {
			s.seen[x] = true
		}
	}
	if s.seen != nil {
		s.seen[v] = true
	}
	s.list = append(s.list, v)
}

func (s *set) has(v string) bool {
	if s.seen != nil {
		return s.seen[v]
	}
	return slices.Contains(s.list, v)
}

// listOf reads a front matter value as a list of strings: a YAML list, or a
// string of items separated by commas or spaces.
func listOf(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, listOf(e)...)
		}
		return out
	case string:
		return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	default:
		return []string{scalarString(v)}
	}
}

// aliasesOf is the front matter's aliases (FrontMatterText's), each once.
func aliasesOf(fm map[string]any) []string {
	var out set
	for _, a := range FrontMatterText(fm).Aliases {
		out.add(a)
	}
	return out.list
}
