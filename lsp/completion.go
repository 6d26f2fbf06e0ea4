package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/memd-dev/memd"
)

// completionLimit is how many names or tags one answer offers; the list is
// marked incomplete past it, so the editor asks again as the user types.
const completionLimit = 50

// completion offers note names inside "[[" and tags after "#", most used
// first.
func (s *Server) completion(ctx context.Context, p params) (any, error) {
	var tp TextDocumentPositionParams
	if err := p.decode(&tp); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, interactiveTimeout)
	defer cancel()
	empty := CompletionList{Items: []CompletionItem{}}
	c, ok := s.at(ctx, tp)
	if !ok {
		return empty, nil
	}
	if from, typed, ok := openLink(c.line, c.col); ok {
		return s.completeLink(ctx, c, tp.Position.Line, from, typed), nil
	}
	if from, typed, ok := openTag(c.line, c.col); ok {
		return s.completeTag(ctx, c, tp.Position.Line, from, typed), nil
	}
	return empty, nil
}

func (s *Server) completeLink(ctx context.Context, c cursor, n, from int, typed string) CompletionList {
	folder := s.folderOf(ctx, c.mem, c.doc.path)
	res, err := c.mem.Names(ctx, memd.NamesRequest{Query: typed, Folder: folder, Limit: completionLimit})
	s.link.failed(c.mem, err)
	out := CompletionList{Items: []CompletionItem{}, IsIncomplete: res.Total > len(res.Names)}
	if err != nil {
		s.log.Debug("complete link", "err", err)
		return out
	}
	closed := strings.HasPrefix(c.line[c.col:], "]]")
	edit := c.enc.rangeOn(n, c.line, from, c.col)
	for i, nm := range res.Names {
		if nm.Path == c.doc.path {
			continue
		}
		text := nm.Name
		if !closed {
			text += "]]"
		}
		filter := strings.Join(append([]string{typed, nm.Name, nm.Title}, nm.Aliases...), " ")
		label := nm.Title
		if label == "" {
			label = nm.Name
		}
		out.Items = append(out.Items, CompletionItem{
			Label: label, Kind: kindFile, Detail: linkDetail(nm),
			SortText: fmt.Sprintf("%04d", i), FilterText: filter,
			TextEdit: &TextEdit{Range: edit, NewText: text},
		})
	}
	return out
}

func linkDetail(nm memd.NoteName) string {
	d := nm.Name
	if len(nm.Aliases) > 0 {
		d += " · also " + strings.Join(nm.Aliases, ", ")
	}
	switch nm.Backlinks {
	case 0:
	case 1:
		d += " · 1 link here"
	default:
		d += fmt.Sprintf(" · %d links here", nm.Backlinks)
	}
	return d
}

func (s *Server) completeTag(ctx context.Context, c cursor, n, from int, typed string) CompletionList {
	folder := s.folderOf(ctx, c.mem, c.doc.path)
	res, err := c.mem.Tags(ctx, memd.TagsRequest{Prefix: typed, Folder: folder, Limit: completionLimit})
	s.link.failed(c.mem, err)
	out := CompletionList{Items: []CompletionItem{}, IsIncomplete: res.Total > len(res.Tags)}
	if err != nil {
		s.log.Debug("complete tag", "err", err)
		return out
	}
	edit := c.enc.rangeOn(n, c.line, from, c.col)
	for i, t := range res.Tags {
		out.Items = append(out.Items, CompletionItem{
			Label: t.Tag, Kind: kindKeyword, Detail: notesCount(t.Notes),
			SortText: fmt.Sprintf("%04d", i), FilterText: t.Tag,
			TextEdit: &TextEdit{Range: edit, NewText: t.Tag},
		})
	}
	return out
}

func notesCount(n int) string {
	if n == 1 {
		return "1 note"
	}
	return fmt.Sprintf("%d notes", n)
}
