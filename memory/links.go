package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// Names lists the notes whose title, aliases or folder-relative path hold
// every word of r.Query, those whose title, alias or file name starts with
// the query first, then the most linked.
func (s *Service) Names(ctx context.Context, r memd.NamesRequest) (memd.NamesResult, error) {
	if err := r.Validate(); err != nil {
		return memd.NamesResult{}, err
	}
	limit := memd.LimitOr(r.Limit)
	res := memd.NamesResult{Names: []memd.NoteName{}}
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.graphs.graphOf(tx)
		if err != nil {
			return err
		}
		q := strings.ToLower(strings.TrimSpace(r.Query))
		words := strings.Fields(q)
		type match struct {
			n      *graphNote
			prefix bool
		}
		var found []match
		for i := range g.notes {
			n := &g.notes[i]
			if r.Folder != "" && n.Folder != r.Folder || !holdsAll(n.haystack, words) {
				continue
			}
			found = append(found, match{n, q != "" && startsWith(n, q)})
		}
		slices.SortFunc(found, func(a, b match) int {
			if a.prefix != b.prefix {
				return cmp.Compare(boolRank(a.prefix), boolRank(b.prefix))
			}
			return cmp.Or(cmp.Compare(b.n.Backlinks, a.n.Backlinks),
				cmp.Compare(a.n.names[0], b.n.names[0]), cmp.Compare(a.n.Path, b.n.Path))
		})
		res.Total = len(found)
		page := found[min(r.Offset, len(found)):]
		for _, m := range page[:min(limit, len(page))] {
			res.Names = append(res.Names, m.n.NoteName)
		}
		return nil
	})
	return res, classify(err)
}

func holdsAll(haystack string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(haystack, w) {
			return false
		}
	}
	return true
}

func startsWith(n *graphNote, q string) bool {
	for _, name := range n.names {
		if strings.HasPrefix(name, q) {
			return true
		}
	}
	return false
}

func boolRank(first bool) int {
	if first {
		return 0
	}
	return 1
}

// Tags lists the tags that start with r.Prefix, most used first.
func (s *Service) Tags(ctx context.Context, r memd.TagsRequest) (memd.TagsResult, error) {
	if err := r.Validate(); err != nil {
		return memd.TagsResult{}, err
	}
	limit := memd.LimitOr(r.Limit)
	res := memd.TagsResult{Tags: []memd.TagCount{}}
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.graphs.graphOf(tx)
		if err != nil {
			return err
		}
		all := g.tags
		if r.Folder != "" {
			all = tagCounts(g.notes, func(n *graphNote) bool { return n.Folder == r.Folder })
		}
		prefix := strings.ToLower(strings.TrimLeft(strings.TrimSpace(r.Prefix), "#"))
		for _, t := range all {
			if strings.HasPrefix(t.Tag, prefix) {
				res.Total++
				if len(res.Tags) < limit {
					res.Tags = append(res.Tags, t)
				}
			}
		}
		return nil
	})
	return res, classify(err)
}

// Resolve says which note, and which heading in it, each of r.Links names.
func (s *Service) Resolve(ctx context.Context, r memd.ResolveRequest) (memd.ResolveResult, error) {
	if err := r.Validate(); err != nil {
		return memd.ResolveResult{}, err
	}
	res := memd.ResolveResult{Links: make([]memd.ResolvedLink, 0, len(r.Links))}
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.graphs.graphOf(tx)
		if err != nil {
			return err
		}
		for _, l := range r.Links {
			out := memd.ResolvedLink{Link: l}
			if i, heading := g.resolve(r.From, l); i >= 0 {
				n := &g.notes[i]
				out.Path, out.Title, out.Heading, out.Line = n.Path, n.Title, heading, 1
				if heading != "" {
					out.Line = headingLine(tx, n.Path, heading)
				}
			}
			res.Links = append(res.Links, out)
		}
		return nil
	})
	return res, classify(err)
}

// resolve finds the note a link's text names and the heading it points
// into; -1 when it names none.
func (g *noteGraph) resolve(from, link string) (int, string) {
	names, heading := linkTargets(link)
	if len(names) == 0 && heading != "" {
		if i, ok := g.byPath[from]; ok {
			return i, heading
		}
	}
	for _, name := range names {
		if i := g.lookup(from, name); i >= 0 {
			return i, heading
		}
	}
	return -1, ""
}

// headingLine is the line of the heading of the note at path whose text
// (compared as a slug, so "#my-heading" finds "## My Heading") is heading,
// else 1.
func headingLine(tx *store.Tx, path, heading string) int {
	want := slug(heading)
	line := 1
	_ = forEachNoteLine(tx, path, func(n int, l string) bool {
		if _, t, ok := memd.Heading(l); ok && slug(t) == want {
			line = n
			return false
		}
		return true
	})
	return line
}

// forEachNoteLine calls fn with each line the note's chunks hold (front
// matter is in none) and its 1-based number, until fn returns false.
func forEachNoteLine(tx *store.Tx, path string, fn func(n int, line string) bool) error {
	n, err := tx.Note(path)
	if err != nil {
		return err
	}
	for _, id := range n.Chunks {
		c, err := tx.Chunk(id)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(c.Text, "\n") {
			if !fn(c.StartLine+i, l) {
				return nil
			}
		}
	}
	return nil
}

// Backlinks lists the [[links]] in other notes that lead to the note at
// path, or, when heading is set, into that heading of it.
func (s *Service) Backlinks(ctx context.Context, path, heading string) (memd.BacklinksResult, error) {
	res := memd.BacklinksResult{Path: path, Heading: heading, Backlinks: []memd.Backlink{}}
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.graphs.graphOf(tx)
		if err != nil {
			return err
		}
		to, ok := g.byPath[path]
		if !ok {
			return fmt.Errorf("backlinks of %s: %w", path, store.ErrNotFound)
		}
		for _, from := range g.backlinks[to] {
			src := &g.notes[from]
			err := forEachNoteLine(tx, src.Path, func(n int, l string) bool {
				for _, span := range memd.LinkSpans(l) {
					i, h := g.resolve(src.Path, l[span[0]+2:span[1]-2])
					if i == to && (heading == "" || slug(h) == slug(heading)) {
						res.Backlinks = append(res.Backlinks, memd.Backlink{Path: src.Path, Title: src.Title,
							Line: n, Text: l, Start: span[0], End: span[1]})
					}
				}
				return true
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return res, classify(err)
}

// memd.NoteText returns lines start..end (1-based, inclusive; 0 for the first
// or the last) of the note file at path, read from disk now. The path must
// lie inside a registered folder.
func (s *Service) NoteText(ctx context.Context, path string, start, end int) (memd.NoteText, error) {
	if start < 0 || end < 0 || end != 0 && end < start {
		return memd.NoteText{}, fmt.Errorf("%w: lines %d to %d; give 1-based lines, the first not after the last", memd.ErrBadRequest, start, end)
	}
	b, err := s.ix.ReadNote(path)
	if err != nil {
		return memd.NoteText{}, classify(err)
	}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if start == 0 {
		start = 1
	}
	if end == 0 || end > len(lines) {
		end = len(lines)
	}
	if start > len(lines) {
		return memd.NoteText{}, fmt.Errorf("%w: %s has %d lines; start at line %d or before", memd.ErrBadRequest, path, len(lines), len(lines))
	}
	folder := ""
	for _, f := range s.ix.Folders() {
		if strings.HasPrefix(path, f.Path+"/") {
			folder = f.Path
		}
	}
	return memd.NoteText{Path: path, Folder: folder, StartLine: start, EndLine: end, Lines: len(lines),
		Text: strings.Join(lines[start-1:end], "\n")}, nil
}

// linkTargets reads the text between a wikilink's brackets into the note
// names it may mean, in the order to try, and the heading it points into.
// Obsidian writes [[note|label]], Dendron [[label|note]]: both sides are
// tried. Org writes [[file:note.org::*Heading][description]].
func linkTargets(link string) (names []string, heading string) {
	link, _, _ = strings.Cut(link, "][")
	parts := []string{link}
	if a, b, ok := strings.Cut(link, "|"); ok {
		parts = []string{a, b}
	}
	for _, p := range parts {
		p = strings.TrimPrefix(strings.TrimSpace(p), "file:")
		if rest, ok := strings.CutPrefix(p, "dendron://"); ok {
			if _, note, ok := strings.Cut(rest, "/"); ok {
				p = note
			}
		}
		if i := strings.Index(p, "::"); i >= 0 {
			heading, p = strings.TrimLeft(p[i+2:], "*# "), p[:i]
		}
		if i := strings.IndexAny(p, "#^"); i >= 0 {
			if p[i] == '#' {
				heading, _, _ = strings.Cut(p[i+1:], "^")
			}
			p = p[:i]
		}
		if p = strings.TrimSpace(p); p != "" {
			names = append(names, p)
		}
	}
	return names, strings.TrimSpace(heading)
}

// slug lower-cases s and turns each run of other than letters and digits
// into one '-', the way Obsidian, Dendron and GitHub anchors are written.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
