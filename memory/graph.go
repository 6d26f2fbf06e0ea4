package memory

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// noteGraph is every note's names, tags and links, read in one pass over
// the notes: link completion, tag counts, link resolution and backlinks
// answer from it. It is built for one store Version and never changed.
type noteGraph struct {
	version   store.Version
	notes     []graphNote // in path order
	byPath    map[string]int
	byName    map[string][]int // lower-cased title, alias, file name or folder-relative path → notes
	backlinks [][]int          // note → the other notes that link to it, ascending
	tags      []memd.TagCount  // over every folder, most used first
}

type graphNote struct {
	memd.NoteName
	tags     []string
	haystack string   // lower-cased title, aliases and relative path, for name queries
	names    []string // lower-cased title, file name and aliases, for prefix matches
}

// graphCache keeps the graph of the latest store version read.
type graphCache struct {
	mu sync.Mutex
	g  *noteGraph
}

// graphOf returns the graph of the notes tx sees, building it when the
// store has changed since the last one. Builds are serialized: callers who
// arrive during one wait for it rather than repeat it.
func (c *graphCache) graphOf(tx *store.Tx) (*noteGraph, error) {
	v := tx.Version()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.g != nil && c.g.version == v {
		return c.g, nil
	}
	g, err := buildGraph(tx)
	if err != nil {
		return nil, err
	}
	g.version = v
	c.g = g
	return g, nil
}

func buildGraph(tx *store.Tx) (*noteGraph, error) {
	g := &noteGraph{byPath: map[string]int{}, byName: map[string][]int{}}
	var links [][]string
	err := tx.ForEachNote("", func(n *store.Note) error {
		i := len(g.notes)
		gn := graphNote{NoteName: memd.NoteName{Path: n.Path, Folder: n.Folder, Name: baseName(n.Path),
			Title: n.Title, Aliases: slices.Clone(n.Aliases)}, tags: slices.Clone(n.Tags)}
		rel := relName(n.Folder, n.Path)
		gn.haystack = strings.ToLower(strings.Join(append([]string{n.Title, rel}, n.Aliases...), "\n"))
		for _, name := range append([]string{n.Title, gn.Name}, n.Aliases...) {
			gn.names = append(gn.names, strings.ToLower(name))
		}
		g.notes = append(g.notes, gn)
		links = append(links, slices.Clone(n.Links))
		g.byPath[n.Path] = i
		for _, name := range append([]string{n.Title, gn.Name, rel}, n.Aliases...) {
			g.addName(name, i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.linkUp(links)
	g.countTags()
	return g, nil
}

func (g *noteGraph) addName(name string, i int) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		return
	}
	if l := g.byName[key]; len(l) == 0 || l[len(l)-1] != i {
		g.byName[key] = append(l, i)
	}
}

// linkUp resolves every note's links into backlinks and their counts.
func (g *noteGraph) linkUp(links [][]string) {
	g.backlinks = make([][]int, len(g.notes))
	for from, targets := range links {
		seen := map[int]bool{}
		for _, t := range targets {
			to := g.lookup(g.notes[from].Path, t)
			if to < 0 || to == from || seen[to] {
				continue
			}
			seen[to] = true
			g.backlinks[to] = append(g.backlinks[to], from)
		}
	}
	for i := range g.notes {
		g.notes[i].Backlinks = len(g.backlinks[i])
	}
}

func (g *noteGraph) countTags() {
	g.tags = tagCounts(g.notes, func(*graphNote) bool { return true })
}

func tagCounts(notes []graphNote, keep func(*graphNote) bool) []memd.TagCount {
	counts := map[string]int{}
	for i := range notes {
		if keep(&notes[i]) {
			for _, t := range notes[i].tags {
				counts[t]++
			}
		}
	}
	out := make([]memd.TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, memd.TagCount{Tag: t, Notes: n})
	}
	slices.SortFunc(out, func(a, b memd.TagCount) int {
		return cmp.Or(cmp.Compare(b.Notes, a.Notes), cmp.Compare(a.Tag, b.Tag))
	})
	return out
}

// lookup finds the note a link's name means, written in the note at from
// (may be ""): a path relative to from's folder first, then a title,
// alias, file name or folder-relative path, preferring a note in from's
// folder, then the first in path order. It returns -1 for none.
func (g *noteGraph) lookup(from, name string) int {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1
	}
	if from != "" && !filepath.IsAbs(name) {
		p := filepath.Join(filepath.Dir(from), filepath.FromSlash(name))
		if i, ok := g.byPath[p]; ok {
			return i
		}
		for _, ext := range []string{".md", ".org", ".txt"} {
			if i, ok := g.byPath[p+ext]; ok {
				return i
			}
		}
	}
	key := strings.ToLower(filepath.ToSlash(name))
	cands := g.byName[key]
	if len(cands) == 0 {
		if _, ok := parse.FormatOf(key); ok {
			cands = g.byName[strings.TrimSuffix(key, filepath.Ext(key))]
		}
	}
	if len(cands) == 0 {
		return -1
	}
	if from != "" {
		if i, ok := g.byPath[from]; ok {
			for _, c := range cands {
				if g.notes[c].Folder == g.notes[i].Folder {
					return c
				}
			}
		}
	}
	return cands[0]
}

// baseName is a file's name without its extension.
func baseName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// relName is a note's path inside its folder, with '/' and without its
// extension: "projects/memd" names projects/memd.md.
func relName(folder, path string) string {
	rel, err := filepath.Rel(folder, path)
	if err != nil {
		return baseName(path)
	}
	return filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
}
