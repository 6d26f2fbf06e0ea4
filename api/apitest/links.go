package apitest

import (
	"context"
	"fmt"
	"strings"

	"github.com/memd-dev/memd"
)

// Names lists the notes whose title holds the query, in path order.
func (s *Service) Names(_ context.Context, r memd.NamesRequest) (memd.NamesResult, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	res := memd.NamesResult{Names: []memd.NoteName{}}
	for _, p := range s.sortedNotes() {
		n := s.Notes[p]
		if strings.Contains(strings.ToLower(n.Title), strings.ToLower(r.Query)) {
			res.Names = append(res.Names, memd.NoteName{Path: p, Folder: n.Folder, Title: n.Title})
		}
	}
	res.Total = len(res.Names)
	return res, nil
}

// Tags counts the notes' tags that start with the prefix.
func (s *Service) Tags(_ context.Context, r memd.TagsRequest) (memd.TagsResult, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	counts := map[string]int{}
	for _, n := range s.Notes {
		for _, t := range n.Tags {
			if strings.HasPrefix(t, r.Prefix) {
				counts[t]++
			}
		}
	}
	res := memd.TagsResult{Tags: []memd.TagCount{}}
	for t, c := range counts {
		res.Tags = append(res.Tags, memd.TagCount{Tag: t, Notes: c})
	}
	res.Total = len(res.Tags)
	return res, nil
}

// Resolve leads a link to the note whose title it is.
func (s *Service) Resolve(_ context.Context, r memd.ResolveRequest) (memd.ResolveResult, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	res := memd.ResolveResult{Links: []memd.ResolvedLink{}}
	for _, l := range r.Links {
		out := memd.ResolvedLink{Link: l}
		for p, n := range s.Notes {
			if strings.EqualFold(n.Title, l) {
				out.Path, out.Title, out.Line = p, n.Title, 1
			}
		}
		res.Links = append(res.Links, out)
	}
	return res, nil
}

// Backlinks lists no links; it answers memd.ErrNotFound for a path that
// is not a note.
func (s *Service) Backlinks(_ context.Context, path, heading string) (memd.BacklinksResult, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if _, ok := s.Notes[path]; !ok {
		return memd.BacklinksResult{}, fmt.Errorf("%w: no note %s", memd.ErrNotFound, path)
	}
	return memd.BacklinksResult{Path: path, Heading: heading, Backlinks: []memd.Backlink{}}, nil
}

// NoteText answers with the note's chunks' text joined.
func (s *Service) NoteText(_ context.Context, path string, start, end int) (memd.NoteText, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	n, ok := s.Notes[path]
	if !ok {
		return memd.NoteText{}, fmt.Errorf("%w: no note %s", memd.ErrNotFound, path)
	}
	var parts []string
	for _, c := range n.Chunks {
		parts = append(parts, c.Text)
	}
	text := strings.Join(parts, "\n")
	lines := strings.Count(text, "\n") + 1
	return memd.NoteText{Path: path, Folder: n.Folder, StartLine: 1, EndLine: lines, Lines: lines, Text: text}, nil
}
