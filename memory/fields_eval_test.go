package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/pipeline/parse"
)

// TestDendronFields measures the weights of front matter fields on the
// Dendron vault (MEMD_DENDRON, default ../../shared/corpora/dendron/vault),
// indexing it through the real pipeline once per setting. Two sets of
// known-item queries, scored by the rank of the target note (one hit per
// note, k 10: MRR@10 and the share found in the top 10):
//   - desc: each note's desc as the query, the words the issue found
//     missing (what a field weight must find);
//   - title: each note's title, for a note other notes' fields must not
//     push down (what a field weight must not break).
func TestDendronFields(t *testing.T) {
	vault := os.Getenv("MEMD_DENDRON")
	if vault == "" {
		vault = "../../shared/corpora/dendron/vault"
	}
	if _, err := os.Stat(vault); err != nil || os.Getenv("MEMD_EVAL_FIELDS") == "" {
		t.Skip("set MEMD_EVAL_FIELDS=1 (and MEMD_DENDRON if the vault is elsewhere)")
	}
	dir, err := filepath.Abs(vault)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	descs, titles := dendronQueries(t, dir)
	for _, w := range []struct {
		name               string
		desc, other, alias int
	}{
		{"fields off (before)", -1, -1, -1},
		{"desc 1", 1, -1, -1},
		{"desc 2", 2, -1, -1},
		{"desc 1, other 1", 1, 1, -1},
		{"desc 2, other 1", 2, 1, -1},
		{"desc 3, other 1", 3, 1, -1},
		{"desc 4, other 1", 4, 1, -1},
	} {
		db := openTestStore(t)
		ix := pipeline.NewIndexer(db, pipeline.Config{Logger: testLog(t),
			DescriptionWeight: w.desc, OtherFieldWeight: w.other, AliasWeight: w.alias})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ix.Run(ctx) }()
		indexFolder(t, ix, dir)
		s := New(Config{DB: db, Indexer: ix})
		t.Logf("%-20s desc: %s  title: %s", w.name, knownItem(t, s, descs), knownItem(t, s, titles))
		s.Close()
		cancel()
		<-done
	}
}

// dendronQueries are the vault's notes with a desc, by desc, and every
// note's title, each with its note's path.
func dendronQueries(t *testing.T, dir string) (descs, titles map[string]string) {
	descs, titles = map[string]string{}, map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := parse.Parse(path, src)
		if err != nil {
			continue
		}
		if d := parse.FrontMatterText(n.FrontMatter).Description; len(strings.Fields(d)) >= 3 {
			descs[path] = d
		}
		if n.Title != "" {
			titles[path] = n.Title
		}
	}
	return descs, titles
}

// knownItem asks each query and scores the rank of its note.
func knownItem(t *testing.T, s *Service, queries map[string]string) string {
	var rr float64
	found := 0
	for path, q := range queries {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := s.Recall(ctx, memd.RecallRequest{Query: q, K: 10, PerNote: true})
		cancel()
		if err != nil {
			continue // a query of stop words or over the size limit
		}
		for i, h := range res.Hits {
			if h.Path == path {
				rr += 1 / float64(i+1)
				found++
				break
			}
		}
	}
	return fmt.Sprintf("MRR@10 %.3f, top-10 %d/%d", rr/float64(len(queries)), found, len(queries))
}
