package pipeline

import (
	"context"
	"path/filepath"
	"testing"
)

func TestBatchBudgetStopsAtBytes(t *testing.T) {
	cases := []struct {
		limit int64
		want  int
	}{{0, 1}, {100, 2}, {250, 3}, {1 << 20, 5}}
	for _, c := range cases {
		b := batchBudget{n: 5, limit: c.limit}
		for {
			if _, ok := b.take(); !ok {
				break
			}
			b.spend(100)
		}
		if got := b.taken(); got != c.want {
			t.Errorf("limit %d: took %d jobs of 100 bytes, want %d", c.limit, got, c.want)
		}
	}
}

func TestPrefixUTF8NeverCutsACharacter(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"日本", 4, "日"}, {"日本", 0, ""}}
	for _, c := range cases {
		if got := prefixUTF8(c.s, c.n); got != c.want {
			t.Errorf("prefixUTF8(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// An idle worker gives its memory back once per burst of work, and indexes
// the next burst as well as the first (its preparers are built again).
func TestIdleWorkerReleasesMemoryAndIndexesAgain(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "alpha.md"), "# Alpha\n\nAlpha notes about apricots.\n")
	ti := startIndexer(t, testConfig())
	if _, err := ti.AddFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	waitFor(t, "the first release", func() bool { return ti.worker.released.Load() == 1 })

	beta := filepath.Join(dir, "beta.md")
	writeFile(t, beta, "# Beta\n\nBeta notes about bananas.\n")
	waitFor(t, "the note written after the release", func() bool { return ti.note(beta) != nil })
	if !hasTerm(t, ti, "banana") {
		t.Errorf("the note indexed after the release has no postings")
	}
	waitFor(t, "the second release", func() bool { return ti.worker.released.Load() == 2 })
}
