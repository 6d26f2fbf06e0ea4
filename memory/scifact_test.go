package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// TestSciFactNoiseFusion measures what fusing a vector list of pure noise
// (a random vector per document and per query) does to BM25's quality on
// BEIR SciFact, at several RRF settings: the floor a broken or random-weight
// embedder can push recall to. It runs with MEMD_SCIFACT=<the eval folder>
// (shared/eval) and python3 for score.py; it logs nDCG@10 and Recall@100
// per setting. With a real embedder, the same harness with its vectors in
// place of the random ones (documents embedded in the pipeline's format)
// and the train queries (qrels.train.tsv) is how to tune K and the weights.
func TestSciFactNoiseFusion(t *testing.T) {
	eval := os.Getenv("MEMD_SCIFACT")
	if eval == "" {
		t.Skip("MEMD_SCIFACT is not set")
	}
	db, ids := sciFactStore(t, filepath.Join(eval, "scifact", "corpus.jsonl"))
	queries := sciFactQueries(t, filepath.Join(eval, "scifact", "queries.test.jsonl"))
	const dim = 256
	rng := rand.New(rand.NewPCG(5, 6))
	idx := vector.New(dim)
	for chunk := range ids {
		idx.AddFloat(chunk, randomVector(rng, dim))
	}
	e := &randomEmbedder{dim: dim, rng: rand.New(rand.NewPCG(7, 8))}
	runs := []struct {
		name   string
		vec    bool
		fusion rank.Fusion
	}{
		{"bm25 alone", false, rank.Fusion{}},
		{"noise, k=60, 1:1 (default)", true, rank.Fusion{}},
		{"noise, k=60, bm25 2:1", true, rank.Fusion{BM25Weight: 2}},
		{"noise, k=60, bm25 4:1", true, rank.Fusion{BM25Weight: 4}},
		{"noise, k=20, 1:1", true, rank.Fusion{K: 20}},
		{"noise, k=100, 1:1", true, rank.Fusion{K: 100}},
	}
	dir := t.TempDir()
	for _, r := range runs {
		cfg := Config{DB: db, Fusion: r.fusion}
		if r.vec {
			cfg.Vectors = vector.Serve(db, idx, e)
		}
		s := New(cfg)
		path := filepath.Join(dir, strings.NewReplacer(" ", "_", ",", "", ":", "-", "(", "", ")", "").Replace(r.name)+".tsv")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, q := range queries {
			res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q.Text, K: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				fmt.Fprintf(w, "%s\t%s\t%v\n", q.ID, ids[h.ChunkID], h.Score)
			}
		}
		w.Flush()
		f.Close()
		out, err := exec.Command("python3", filepath.Join(eval, "score.py"), filepath.Join(eval, "scifact", "qrels.tsv"), path).CombinedOutput()
		if err != nil {
			t.Fatalf("score.py: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Logf("%-28s %s", r.name, lines[len(lines)-1])
	}
}

// TestSciFactTypos measures typo tolerance on BEIR SciFact, BM25 alone:
// nDCG@10 of the clean queries and of a typo'd copy
// (scripts/typo-queries.py, seed 15: one or two edits in a third of the
// words), with typo tolerance on and off, on the test queries and, with
// MEMD_SCIFACT_TRAIN=1, the training ones. It runs with MEMD_SCIFACT=<the
// eval folder> and python3, and logs the figures.
func TestSciFactTypos(t *testing.T) {
	eval := os.Getenv("MEMD_SCIFACT")
	if eval == "" {
		t.Skip("MEMD_SCIFACT is not set")
	}
	db, ids := sciFactStore(t, filepath.Join(eval, "scifact", "corpus.jsonl"))
	sets := []struct{ name, queries, qrels string }{{"test", "queries.test.jsonl", "qrels.tsv"}}
	if os.Getenv("MEMD_SCIFACT_TRAIN") != "" {
		sets = append(sets, struct{ name, queries, qrels string }{"train", "queries.jsonl", "qrels.train.tsv"})
	}
	dir := t.TempDir()
	for _, set := range sets {
		clean := filepath.Join(eval, "scifact", set.queries)
		typod := filepath.Join(dir, "typo-"+set.queries)
		out, err := exec.Command("python3", "../scripts/typo-queries.py", clean).Output()
		if err != nil {
			t.Fatalf("typo-queries.py: %v", err)
		}
		if err := os.WriteFile(typod, out, 0o644); err != nil {
			t.Fatal(err)
		}
		qrels := filepath.Join(eval, "scifact", set.qrels)
		for _, r := range []struct {
			name    string
			queries string
			typos   rank.Typos
		}{
			{"clean, typo tolerance off", clean, rank.Typos{Off: true}},
			{"clean", clean, rank.Typos{}},
			{"typo'd, typo tolerance off", typod, rank.Typos{Off: true}},
			{"typo'd", typod, rank.Typos{}},
		} {
			s := New(Config{DB: db, Typos: r.typos})
			corrected := 0
			score := sciFactScore(t, eval, qrels, ids, sciFactQueries(t, r.queries), func(q string) memd.RecallResult {
				res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: 100})
				if err != nil {
					t.Fatal(err)
				}
				if res.CorrectedQuery != "" {
					corrected++
				}
				return res
			})
			s.Close()
			t.Logf("%-5s %-28s %s (%d corrected)", set.name, r.name, score, corrected)
		}
	}
}

// sciFactScore asks every query with recall, writes the best chunk per
// note as a run and returns score.py's summary line for it against qrels.
func sciFactScore(t *testing.T, eval, qrels string, ids map[uint64]string, queries []sciFactQuery, recall func(q string) memd.RecallResult) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.tsv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, q := range queries {
		seen := map[string]bool{}
		for _, h := range recall(q.Text).Hits {
			if doc := ids[h.ChunkID]; !seen[doc] {
				seen[doc] = true
				fmt.Fprintf(w, "%s\t%s\t%v\n", q.ID, doc, h.Score)
			}
		}
	}
	w.Flush()
	f.Close()
	out, err := exec.Command("python3", filepath.Join(eval, "score.py"), qrels, path).CombinedOutput()
	if err != nil {
		t.Fatalf("score.py: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

type sciFactQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

func sciFactQueries(t *testing.T, path string) []sciFactQuery {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []sciFactQuery
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		var q sciFactQuery
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		out = append(out, q)
	}
	return out
}

// sciFactStore puts every document in as one note of one chunk, title
// terms counted three times as the pipeline's default title weight does,
// and returns chunk id → corpus id.
func sciFactStore(t *testing.T, path string) (*store.DB, map[uint64]string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db := openTestStore(t)
	var docs []struct{ ID, Title, Text string }
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, struct{ ID, Title, Text string }{d.ID, d.Title, d.Text})
	}
	err = db.Update(func(tx *store.Tx) error {
		for _, d := range docs {
			text := d.Title + "\n" + d.Text
			terms := termFreqs(text)
			title := map[string]bool{}
			for _, term := range lexical.Terms(d.Title) {
				title[term] = true
			}
			for i := range terms {
				if title[terms[i].Term] {
					terms[i].Freq += 2
				}
			}
			note := &store.Note{Path: "/scifact/" + d.ID + ".md", Folder: "/scifact", Hash: d.ID, Title: d.Title}
			if _, err := tx.PutNote(note, []store.NewChunk{{Chunk: store.Chunk{Text: text, Title: d.Title, StartLine: 1, EndLine: 1}, Terms: terms}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint64]string{}
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			ids[c.ID] = strings.TrimSuffix(filepath.Base(c.Path), ".md")
			return nil
		})
	})
	return db, ids
}

// TestSciFactExpansion measures query expansion (pseudo-relevance
// feedback, rank.Expansion) on BEIR SciFact, BM25 alone: off, and on at
// rank.DefaultExpansion, on the test queries; with MEMD_SCIFACT_TRAIN=1
// it first runs a grid of settings on the training queries, where the
// default was chosen. It runs with MEMD_SCIFACT=<the eval folder> and
// python3, and logs nDCG@10 and Recall@100 per run.
func TestSciFactExpansion(t *testing.T) {
	eval := os.Getenv("MEMD_SCIFACT")
	if eval == "" {
		t.Skip("MEMD_SCIFACT is not set")
	}
	db, ids := sciFactStore(t, filepath.Join(eval, "scifact", "corpus.jsonl"))
	run := func(set, queries, qrels string, expand bool, e rank.Expansion) {
		s := New(Config{DB: db, Expansion: e})
		defer s.Close()
		score := sciFactScore(t, eval, filepath.Join(eval, "scifact", qrels), ids,
			sciFactQueries(t, filepath.Join(eval, "scifact", queries)), func(q string) memd.RecallResult {
				res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: 100, Expand: &expand})
				if err != nil {
					t.Fatal(err)
				}
				return res
			})
		name := "off"
		if expand {
			e = e.WithDefaults()
			name = fmt.Sprintf("chunks %d, terms %d, weight %.2f", e.Chunks, e.Terms, e.Weight)
		}
		t.Logf("%-5s %-34s %s", set, name, score)
	}
	if os.Getenv("MEMD_SCIFACT_TRAIN") != "" {
		run("train", "queries.jsonl", "qrels.train.tsv", false, rank.Expansion{})
		for _, chunks := range []int{3, 5, 10} {
			for _, terms := range []int{5, 10, 20, 40} {
				for _, weight := range []float64{0.1, 0.2, 0.35, 0.5} {
					run("train", "queries.jsonl", "qrels.train.tsv", true, rank.Expansion{Chunks: chunks, Terms: terms, Weight: weight})
				}
			}
		}
	}
	run("test", "queries.test.jsonl", "qrels.tsv", false, rank.Expansion{})
	run("test", "queries.test.jsonl", "qrels.tsv", true, rank.Expansion{})
	run("test", "queries.test.jsonl", "qrels.tsv", true, rank.Expansion{Weight: 0.35}) // the train grid's best Recall@100
}
