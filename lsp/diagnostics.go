package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memd-dev/memd"
)

// diagnoser publishes hints for the [[links]] of a buffer that lead to no
// note, a moment after the last edit.
type diagnoser struct {
	s *Server

	mu      sync.Mutex
	timers  map[string]*time.Timer
	stopped bool
	running sync.WaitGroup
}

// schedule checks the buffer's links after the delay, replacing a check
// already scheduled.
func (dg *diagnoser) schedule(uri string, after time.Duration) {
	dg.mu.Lock()
	defer dg.mu.Unlock()
	if dg.stopped {
		return
	}
	if t := dg.timers[uri]; t != nil {
		t.Stop()
	}
	dg.timers[uri] = time.AfterFunc(after, func() { dg.run(uri) })
}

// clear drops a closed buffer's hints.
func (dg *diagnoser) clear(uri string) {
	dg.mu.Lock()
	if t := dg.timers[uri]; t != nil {
		t.Stop()
		delete(dg.timers, uri)
	}
	dg.mu.Unlock()
	dg.s.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Diagnostics: []Diagnostic{}})
}

// stop cancels the checks scheduled and waits for those running.
func (dg *diagnoser) stop() {
	dg.mu.Lock()
	dg.stopped = true
	for _, t := range dg.timers {
		t.Stop()
	}
	dg.mu.Unlock()
	dg.running.Wait()
}

func (dg *diagnoser) run(uri string) {
	dg.mu.Lock()
	if dg.stopped {
		dg.mu.Unlock()
		return
	}
	dg.running.Add(1)
	dg.mu.Unlock()
	defer dg.running.Done()

	s := dg.s
	d := s.docs.get(uri)
	if d == nil || !isNote(d.path) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), searchTimeout)
	defer cancel()
	mem := s.link.get(ctx)
	if mem == nil {
		return
	}
	diags := []Diagnostic{}
	if s.folderOf(ctx, mem, d.path) != "" {
		var err error
		if diags, err = s.unresolvedLinks(ctx, mem, d); err != nil {
			s.log.Debug("check links", "uri", uri, "err", err)
			return
		}
	}
	if s.docs.get(uri) != d {
		return // edited since: the check scheduled by that edit publishes
	}
	v := d.version
	s.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: diags})
}

// unresolvedLinks asks memd about every link of the buffer outside code,
// at once, and returns a hint for each that leads nowhere.
func (s *Server) unresolvedLinks(ctx context.Context, mem Memory, d *document) ([]Diagnostic, error) {
	type at struct{ line, start, end int }
	var links []string
	var where []at
	code := codeLines(d.lines)
	for i, l := range d.lines {
		if code[i] {
			continue
		}
		for _, sp := range memd.LinkSpans(l) {
			if !mayNameNote(l[sp[0]+2 : sp[1]-2]) {
				continue
			}
			links = append(links, l[sp[0]+2:sp[1]-2])
			where = append(where, at{i, sp[0], sp[1]})
		}
	}
	out := []Diagnostic{}
	if len(links) == 0 {
		return out, nil
	}
	res, err := mem.Resolve(ctx, memd.ResolveRequest{From: d.path, Links: links})
	s.link.failed(mem, err)
	if err != nil {
		return nil, err
	}
	enc := s.encoding()
	for i, r := range res.Links {
		if r.Path != "" || i >= len(where) {
			continue
		}
		w := where[i]
		out = append(out, Diagnostic{
			Range: enc.rangeOn(w.line, d.lines[w.line], w.start, w.end), Severity: severityHint,
			Code: "unresolved-link", Source: "memd",
			Message: fmt.Sprintf("no note in memd's folders is named “%s”", r.Link),
		})
	}
	return out, nil
}

// mayNameNote reports whether a link's text can name a note: not a URL
// (Org's [[https://…][…]]) and not an embedded picture or other file.
// Dotted names are notes (Dendron's hierarchy.of.notes), so only the
// extensions of files that are never notes rule a link out.
func mayNameNote(link string) bool {
	target, _, _ := strings.Cut(link, "][")
	target, _, _ = strings.Cut(target, "|")
	target, _, _ = strings.Cut(target, "#")
	if scheme, rest, ok := strings.Cut(target, ":"); ok && scheme != "file" && scheme != "dendron" &&
		scheme != "" && !strings.ContainsAny(scheme, " /") && !strings.HasPrefix(rest, " ") {
		return false
	}
	return !fileExtensions[strings.ToLower(filepath.Ext(strings.TrimSpace(target)))]
}

var fileExtensions = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".bmp": true,
	".pdf": true, ".mp3": true, ".mp4": true, ".wav": true, ".ogg": true, ".mov": true, ".webm": true,
	".zip": true, ".canvas": true, ".excalidraw": true, ".csv": true, ".html": true,
}
