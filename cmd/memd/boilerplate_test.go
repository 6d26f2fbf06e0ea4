package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
)

// templateFooter is a page footer a template puts in every note; the note
// that explains zucchini is outranked by it without boilerplate handling.
const templateFooter = "\n---\n\n## About this page\n\nMade from the garden template. Zucchini: water the zucchini plants, see the zucchini page.\n"

// TestTemplateBoilerplate asks a real daemon, on a real store, about a
// vault where fourteen notes carry one footer: the footer never ranks,
// the note about its words does, the footer is still shown with each
// note, a note that is nothing but the template is found by its title,
// and when the footer leaves enough notes it counts again where it stays.
func TestTemplateBoilerplate(t *testing.T) {
	dir := tempDir(t)
	vault := filepath.Join(dir, "garden")
	beds := []string{"tomatoes", "beans", "leeks", "carrots", "onions", "peas", "kale", "chard",
		"radishes", "garlic", "spinach", "celery"}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(vault, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i, plant := range beds {
		write(fmt.Sprintf("bed%02d.md", i), fmt.Sprintf("# Bed %d\n\nBed %d grows %s, sown in spring.\n%s", i, i, plant, templateFooter))
	}
	// The note that answers, long enough that a short footer would outrank it.
	write("zucchini.md", "# Zucchini\n\nZucchini need room: one plant fills a square metre by July. "+
		"Sow two seeds per station in late May, thin to the stronger one, and mulch well. "+
		"Pick the fruit small, every other day, or the plant stops setting new ones.\n"+templateFooter)
	write("stub.md", "---\ntitle: Greenhouse stub\n---\n"+templateFooter)

	d := startDaemon(t, filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock"))
	c := d.client
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.AddFolder(ctx, vault); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, c, time.Minute)
	zucchini := filepath.Join(vault, "zucchini.md")

	res := recallHits(ctx, t, c, "zucchini plants")
	if len(res.Hits) == 0 || res.Hits[0].Path != zucchini {
		t.Fatalf("zucchini plants: want %s first, got %s", zucchini, paths(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Path != zucchini {
			t.Errorf("a footer ranks: %s:%d %q", h.Path, h.StartLine, h.Text)
		}
	}
	bed, err := c.Note(ctx, filepath.Join(vault, "bed01.md"))
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	for _, ch := range bed.Chunks {
		shown.WriteString(ch.Text)
	}
	if !strings.Contains(shown.String(), "Made from the garden template") {
		t.Errorf("the footer is not shown with its note: %q", shown.String())
	}
	if res := recallHits(ctx, t, c, "greenhouse stub"); len(res.Hits) == 0 || res.Hits[0].Path != filepath.Join(vault, "stub.md") {
		t.Errorf("a note of the template only is not found by its title: %s", paths(res.Hits))
	}

	// Five beds drop the footer: nine notes keep it, under the ten that
	// make boilerplate, and in those (unchanged on disk) it ranks again.
	for i := range 5 {
		write(fmt.Sprintf("bed%02d.md", i), fmt.Sprintf("# Bed %d\n\nBed %d grows %s.\n", i, i, beds[i]))
	}
	eventually(t, time.Minute, "the footer ranks again in the notes that keep it", func() (bool, string) {
		res := recallHits(ctx, t, c, "garden template")
		return len(res.Hits) == 9, paths(res.Hits)
	})
}

func recallHits(ctx context.Context, t *testing.T, c *api.Client, query string) memd.RecallResult {
	t.Helper()
	res, err := c.Recall(ctx, memd.RecallRequest{Query: query, K: 50})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
