package lsp

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memd-dev/memd"
)

// cursor is what a positional request is about: the buffer, the line and
// the byte column, and memd to ask (nil when it cannot be reached now).
type cursor struct {
	doc  *document
	line string
	col  int
	mem  Memory
	enc  encoding
}

// at reads a positional request. ok is false for a buffer the editor never
// opened or that is not a note, and then the request answers nothing.
func (s *Server) at(ctx context.Context, p TextDocumentPositionParams) (cursor, bool) {
	d := s.docs.get(p.TextDocument.URI)
	if d == nil || !isNote(d.path) {
		return cursor{}, false
	}
	enc := s.encoding()
	line := d.line(p.Position.Line)
	c := cursor{doc: d, line: line, col: enc.byteCol(line, p.Position.Character), enc: enc}
	c.mem = s.link.get(ctx)
	return c, c.mem != nil
}

// rangeOn is the range of bytes [from, to) of line, the 0-based line n.
func (e encoding) rangeOn(n int, line string, from, to int) Range {
	return Range{Start: Position{Line: n, Character: e.charCol(line, from)},
		End: Position{Line: n, Character: e.charCol(line, to)}}
}

// isNote reports whether memd indexes a file of this name: Markdown, Org
// and text, as the daemon's parser decides.
func isNote(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mdx", ".org", ".txt", ".text":
		return true
	}
	return false
}

// folderCache remembers memd's folders for a few seconds: every request
// asks which folder its buffer is in.
type folderCache struct {
	mu      sync.Mutex
	folders []string
	at      time.Time
}

const foldersFresh = 5 * time.Second

// folderOf is the registered folder holding path, or "".
func (s *Server) folderOf(ctx context.Context, mem Memory, path string) string {
	fc := &s.folders
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if time.Since(fc.at) > foldersFresh {
		fs, err := mem.Folders(ctx)
		s.link.failed(mem, err)
		if err == nil {
			fc.folders, fc.at = fc.folders[:0], time.Now()
			for _, f := range fs {
				fc.folders = append(fc.folders, f.Path)
			}
		}
	}
	for _, f := range fc.folders {
		if strings.HasPrefix(path, f+string(filepath.Separator)) {
			return f
		}
	}
	return ""
}

// relPath is path inside its folder, for the editor to show.
func (s *Server) relPath(ctx context.Context, mem Memory, path string) string {
	if f := s.folderOf(ctx, mem, path); f != "" {
		if rel, err := filepath.Rel(f, path); err == nil {
			return rel
		}
	}
	return path
}

// resolve asks memd where one link written in the buffer leads.
func (s *Server) resolve(ctx context.Context, c cursor, link string) (memd.ResolvedLink, bool) {
	res, err := c.mem.Resolve(ctx, memd.ResolveRequest{From: c.doc.path, Links: []string{link}})
	s.link.failed(c.mem, err)
	if err != nil || len(res.Links) != 1 || res.Links[0].Path == "" {
		return memd.ResolvedLink{}, false
	}
	return res.Links[0], true
}
