package lsp

import (
	"context"
	"strings"

	"github.com/memd-dev/memd"
)

// definition leads a [[link]] to its note, at the heading it names.
func (s *Server) definition(ctx context.Context, p params) (any, error) {
	var tp TextDocumentPositionParams
	if err := p.decode(&tp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, interactiveTimeout)
	defer cancel()
	c, ok := s.at(ctx, tp)
	if !ok {
		return nil, nil
	}
	_, inner, ok := linkAt(c.line, c.col)
	if !ok {
		return nil, nil
	}
	to, ok := s.resolve(ctx, c, inner)
	if !ok {
		return nil, nil
	}
	line := max(to.Line-1, 0)
	return []Location{{URI: uriOf(to.Path), Range: Range{Start: Position{Line: line}, End: Position{Line: line}}}}, nil
}

// references lists the backlinks: on a heading, the links into that
// heading; on a [[link]], the links to the note it names; anywhere else in
// a note (its title line, its text), the links to the note.
func (s *Server) references(ctx context.Context, p params) (any, error) {
	var rp referenceParams
	if err := p.decode(&rp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, interactiveTimeout)
	defer cancel()
	c, ok := s.at(ctx, rp.TextDocumentPositionParams)
	if !ok {
		return []Location{}, nil
	}
	target, headingText := c.doc.path, ""
	if _, inner, ok := linkAt(c.line, c.col); ok {
		to, ok := s.resolve(ctx, c, inner)
		if !ok {
			return []Location{}, nil
		}
		target, headingText = to.Path, to.Heading
	} else if level, text, ok := memd.Heading(c.line); ok && !isTitleHeading(c.doc, rp.Position.Line, level) {
		headingText = text
	}
	res, err := c.mem.Backlinks(ctx, target, headingText)
	s.link.failed(c.mem, err)
	if err != nil {
		s.log.Debug("backlinks", "path", target, "err", err)
		return []Location{}, nil
	}
	return backlinkLocations(c, res.Backlinks), nil
}

// isTitleHeading reports whether the heading on line n is the note's title:
// its first level-1 heading, standing for the whole note.
func isTitleHeading(d *document, n, level int) bool {
	if level != 1 || strings.HasPrefix(d.lines[n], "*") {
		return false
	}
	for i := 0; i < n; i++ {
		if l, _, ok := memd.Heading(d.lines[i]); ok && l == 1 && !strings.HasPrefix(d.lines[i], "*") {
			return false
		}
	}
	return true
}

func backlinkLocations(c cursor, links []memd.Backlink) []Location {
	out := make([]Location, 0, len(links))
	for _, b := range links {
		n := b.Line - 1
		out = append(out, Location{URI: uriOf(b.Path), Range: c.enc.rangeOn(n, b.Text, b.Start, b.End)})
	}
	return out
}
