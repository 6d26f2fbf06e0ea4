package lsp

import (
	"net/url"
	"path/filepath"
	"strings"
	"sync"
)

// document is an open editor buffer: the text the editor has, which may
// differ from the file on disk and from what memd indexed.
type document struct {
	uri     string
	path    string // "" when the URI is not a file
	version int
	lines   []string // without line endings
}

func newDocument(uri string, version int, text string) *document {
	return &document{uri: uri, path: pathOf(uri), version: version, lines: splitLines(text)}
}

func splitLines(text string) []string {
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
}

func (d *document) text() string { return strings.Join(d.lines, "\n") }

// line returns line n (0-based), or "" past the end.
func (d *document) line(n int) string {
	if n < 0 || n >= len(d.lines) {
		return ""
	}
	return d.lines[n]
}

// documents holds the open buffers by URI. It is safe for concurrent use;
// a document read from it is never changed, only replaced.
type documents struct {
	mu   sync.Mutex
	docs map[string]*document
}

func (ds *documents) get(uri string) *document {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.docs[uri]
}

func (ds *documents) put(d *document) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.docs == nil {
		ds.docs = map[string]*document{}
	}
	ds.docs[d.uri] = d
}

func (ds *documents) remove(uri string) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	delete(ds.docs, uri)
}

// applyChange returns the text with the span r replaced by text, r's
// characters counted in enc.
func applyChange(d *document, r Range, text string, enc encoding) string {
	start := offsetOf(d, r.Start, enc)
	end := offsetOf(d, r.End, enc)
	all := d.text()
	if end < start {
		start, end = end, start
	}
	return all[:start] + text + all[end:]
}

// offsetOf is the byte offset in the document's text of a position.
func offsetOf(d *document, p Position, enc encoding) int {
	off := 0
	for i := 0; i < p.Line && i < len(d.lines); i++ {
		off += len(d.lines[i]) + 1
	}
	if p.Line >= len(d.lines) {
		return max(0, off-1)
	}
	return off + enc.byteCol(d.lines[p.Line], p.Character)
}

// encoding is how a position's Character counts: UTF-16 code units, LSP's
// default, or bytes when the client offers "utf-8".
type encoding string

const (
	utf16 encoding = "utf-16"
	utf8e encoding = "utf-8"
)

// byteCol turns a character count on line into a byte offset, clamped to
// the line.
func (e encoding) byteCol(line string, char int) int {
	if e == utf8e {
		return min(max(char, 0), len(line))
	}
	units := 0
	for i, r := range line {
		if units >= char {
			return i
		}
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return len(line)
}

// charCol turns a byte offset on line into a character count.
func (e encoding) charCol(line string, col int) int {
	col = min(max(col, 0), len(line))
	if e == utf8e {
		return col
	}
	units := 0
	for _, r := range line[:col] {
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return units
}

// pathOf is the file path of a file: URI, or "" for another scheme.
func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// uriOf is the file: URI of an absolute path.
func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
