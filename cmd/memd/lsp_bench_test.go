package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
)

// BenchmarkLSP measures what an editor waits for from `memctl lsp` on the
// Dendron sample vault (1,012 notes): completion inside "[[" and after
// "#", and hover on a [[link]], each a round trip over the server's stdin
// and stdout, through the daemon's socket. It reports the median and the
// 99th percentile of each answer.
func BenchmarkLSP(b *testing.B) {
	vault := copyVault(b)
	dir := tempDir(b)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(b, data, sock)
	ctx := context.Background()
	if _, err := d.client.AddFolder(ctx, vault); err != nil {
		b.Fatal(err)
	}
	if err := d.client.WaitIdle(ctx); err != nil {
		b.Fatal(err)
	}
	names, err := d.client.Names(ctx, memd.NamesRequest{Limit: memd.MaxLimit})
	if err != nil || len(names.Names) < 500 {
		b.Fatalf("names: %d, %v", len(names.Names), err)
	}
	tags, err := d.client.Tags(ctx, memd.TagsRequest{Limit: 100})
	if err != nil || len(tags.Tags) == 0 {
		b.Fatalf("tags: %+v, %v", tags, err)
	}

	// One buffer: a line per case, each a [[prefix being typed, a #tag
	// prefix, or a whole [[link]].
	var lines []string
	for i, n := range names.Names[:200] {
		lines = append(lines, "[["+n.Name[:min(len(n.Name), 3+i%6)])
	}
	for _, tg := range tags.Tags {
		lines = append(lines, "see #"+tg.Tag[:min(len(tg.Tag), 2)])
	}
	for _, n := range names.Names[:200] {
		lines = append(lines, "[["+n.Name+"]]")
	}
	e := startEditor(b, data, sock)
	path := filepath.Join(vault, "bench.scratch.md")
	uri := "file://" + path
	e.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": strings.Join(lines, "\n")}})

	linkLines, tagLines := 200, len(tags.Tags)
	cases := []struct {
		name   string
		method string
		pos    func(i int) map[string]any
	}{
		{"complete-link", "textDocument/completion", func(i int) map[string]any {
			n := i % linkLines
			return at(uri, n, len(lines[n]))
		}},
		{"complete-tag", "textDocument/completion", func(i int) map[string]any {
			n := linkLines + i%tagLines
			return at(uri, n, len(lines[n]))
		}},
		{"hover-link", "textDocument/hover", func(i int) map[string]any {
			return at(uri, linkLines+tagLines+i%200, 4)
		}},
	}
	// The baseline: the same questions asked of the daemon directly through
	// the typed client, without the language server between.
	direct := []struct {
		name string
		ask  func(i int) error
	}{
		{"direct-names", func(i int) error {
			n := i % linkLines
			_, err := d.client.Names(ctx, memd.NamesRequest{Query: strings.TrimPrefix(lines[n], "[["), Folder: vault, Limit: 50})
			return err
		}},
		{"direct-resolve-note", func(i int) error {
			n := names.Names[i%200]
			res, err := d.client.Resolve(ctx, memd.ResolveRequest{From: path, Links: []string{n.Name}})
			if err == nil {
				_, err = d.client.Note(ctx, res.Links[0].Path)
			}
			return err
		}},
	}
	for _, c := range direct {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if err := c.ask(i); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			reportPercentiles(b, took)
		})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			var res any
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				e.call(c.method, c.pos(i), &res)
				took = append(took, time.Since(start))
				if res == nil {
					b.Fatalf("%s at %+v answered nothing", c.method, c.pos(i))
				}
			}
			reportPercentiles(b, took)
		})
	}
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
	b.ReportMetric(ms(took[len(took)*99/100]), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
