package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
)

// linkVault writes a small vault of notes that link to one another, and a
// note outside it that a symlink inside points to.
func linkVault(t *testing.T) (vault, outside string) {
	t.Helper()
	dir := tempDir(t)
	vault = filepath.Join(dir, "vault")
	files := map[string]string{
		"alpha.md": "---\ntitle: Alpha Note\naliases: [First Letter]\ntags: [proj]\n---\n# Alpha\n\nSee [[beta]] and\nthe part [[Beta#Some Details]] too.\n",
		"beta.md":  "# Beta\n\nBeta's opening words.\n\n## Some Details\n\nmore #proj #other\n",
		"sub/gamma.md": "# Gamma\n\nlinks [[beta|label]] and [[nowhere]]\n" +
			"and [[First Letter]] #proj\n",
		"delta.org": "#+TITLE: Delta\n* Head\n[[file:alpha.md][alpha]] and [[beta::*Some Details][there]]\n",
	}
	for name, text := range files {
		p := filepath.Join(vault, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside = filepath.Join(dir, "secret.md")
	if err := os.WriteFile(outside, []byte("# Secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(vault, "leak.md")); err != nil {
		t.Fatal(err)
	}
	return vault, outside
}

// TestEditorRoutes asks a real daemon, indexing a real vault, what the
// editor routes answer: names, tags, link resolution, backlinks and text.
func TestEditorRoutes(t *testing.T) {
	vault, outside := linkVault(t)
	dir := tempDir(t)
	d := startDaemon(t, filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock"))
	c := d.client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.AddFolder(ctx, vault); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, c, time.Minute)
	alpha, beta, gamma, delta := filepath.Join(vault, "alpha.md"), filepath.Join(vault, "beta.md"),
		filepath.Join(vault, "sub", "gamma.md"), filepath.Join(vault, "delta.org")

	t.Run("names", func(t *testing.T) {
		all, err := c.Names(ctx, memd.NamesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if all.Total != 4 || all.Names[0].Path != beta || all.Names[0].Backlinks != 3 || all.Names[0].Name != "beta" {
			t.Fatalf("all names, most linked first: %+v", all)
		}
		for query, want := range map[string]string{"alp": alpha, "first lett": alpha, "sub/gam": gamma, "delta": delta} {
			res, err := c.Names(ctx, memd.NamesRequest{Query: query, Limit: 1})
			if err != nil || len(res.Names) != 1 || res.Names[0].Path != want {
				t.Errorf("names %q: %+v, %v; want %s", query, res, err, want)
			}
		}
		page, err := c.Names(ctx, memd.NamesRequest{Limit: 2, Offset: 1})
		if err != nil || page.Total != 4 || len(page.Names) != 2 || page.Names[0].Path != all.Names[1].Path {
			t.Errorf("the second page of two: %+v, %v", page, err)
		}
		if _, err := c.Names(ctx, memd.NamesRequest{Limit: memd.MaxLimit + 1}); !errors.Is(err, memd.ErrBadRequest) {
			t.Errorf("a limit over the cap: %v", err)
		}
	})

	t.Run("tags", func(t *testing.T) {
		res, err := c.Tags(ctx, memd.TagsRequest{})
		want := []memd.TagCount{{Tag: "proj", Notes: 3}, {Tag: "other", Notes: 1}}
		if err != nil || !slices.Equal(res.Tags, want) {
			t.Fatalf("tags: %+v, %v; want %+v", res, err, want)
		}
		res, err = c.Tags(ctx, memd.TagsRequest{Prefix: "#Ot"})
		if err != nil || len(res.Tags) != 1 || res.Tags[0].Tag != "other" {
			t.Fatalf("tags starting with #Ot: %+v, %v", res, err)
		}
	})

	t.Run("resolve", func(t *testing.T) {
		links := []string{"beta", "Beta#Some Details", "nowhere", "First Letter", "beta|label", "file:alpha.md][alpha",
			"beta::*Some Details][there", "#some-details", "sub/gamma"}
		res, err := c.Resolve(ctx, memd.ResolveRequest{From: beta, Links: links})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			path string
			line int
		}{{beta, 1}, {beta, 5}, {"", 0}, {alpha, 1}, {beta, 1}, {alpha, 1}, {beta, 5}, {beta, 5}, {gamma, 1}}
		for i, w := range want {
			if got := res.Links[i]; got.Path != w.path || got.Line != w.line || got.Link != links[i] {
				t.Errorf("resolve %q: %+v; want %s line %d", links[i], got, w.path, w.line)
			}
		}
	})

	t.Run("backlinks", func(t *testing.T) {
		res, err := c.Backlinks(ctx, beta, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range res.Backlinks {
			got = append(got, filepath.Base(b.Path)+":"+b.Text[b.Start:b.End])
			if !strings.HasPrefix(b.Text[b.Start:], "[[") {
				t.Errorf("backlink span %d-%d of %q", b.Start, b.End, b.Text)
			}
		}
		want := []string{"alpha.md:[[beta]]", "alpha.md:[[Beta#Some Details]]", "delta.org:[[beta::*Some Details][there]]", "gamma.md:[[beta|label]]"}
		if !slices.Equal(got, want) {
			t.Fatalf("backlinks of beta: %q, want %q", got, want)
		}
		if res.Backlinks[1].Line != 9 {
			t.Errorf("the heading link is on line %d, want 9", res.Backlinks[1].Line)
		}
		res, err = c.Backlinks(ctx, beta, "some-details")
		if err != nil || len(res.Backlinks) != 2 {
			t.Fatalf("backlinks into a heading: %+v, %v", res, err)
		}
		if _, err := c.Backlinks(ctx, filepath.Join(vault, "none.md"), ""); !errors.Is(err, memd.ErrNotFound) {
			t.Errorf("backlinks of no note: %v", err)
		}
	})

	t.Run("text", func(t *testing.T) {
		res, err := c.NoteText(ctx, beta, 3, 5)
		if err != nil || res.Text != "Beta's opening words.\n\n## Some Details" || res.Lines != 7 || res.Folder != vault {
			t.Fatalf("lines 3-5 of beta: %+v, %v", res, err)
		}
		res, err = c.NoteText(ctx, beta, 0, 0)
		if err != nil || res.StartLine != 1 || res.EndLine != 7 {
			t.Fatalf("all of beta: %+v, %v", res, err)
		}
		if _, err := c.NoteText(ctx, beta, 9, 0); !errors.Is(err, memd.ErrBadRequest) {
			t.Errorf("lines past the end: %v", err)
		}
		if _, err := c.NoteText(ctx, outside, 0, 0); !errors.Is(err, memd.ErrUnknownFolder) {
			t.Errorf("a note outside the folders: %v", err)
		}
		if res, err := c.NoteText(ctx, filepath.Join(vault, "leak.md"), 0, 0); !errors.Is(err, memd.ErrBadRequest) {
			t.Errorf("a symlink out of the folder: %+v, %v", res, err)
		}
		var apiErr *memd.Error
		if _, err := c.NoteText(ctx, "beta.md", 0, 0); !errors.As(err, &apiErr) || apiErr.Status != 400 {
			t.Errorf("a relative path: %v", err)
		}
	})
}
