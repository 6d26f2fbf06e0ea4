package memory

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference/testmodel/conceptembed"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// embedStore stores e's vector of every chunk and makes e's vectors active,
// as the pipeline's embed stage would.
func embedStore(t testing.TB, db *store.DB, e *conceptembed.Embedder) {
	t.Helper()
	err := db.Update(func(tx *store.Tx) error {
		var chunks []*store.Chunk
		if err := tx.ForEachChunk(func(c *store.Chunk) error { chunks = append(chunks, c); return nil }); err != nil {
			return err
		}
		for _, c := range chunks {
			if err := tx.PutVector(e.Fingerprint, c.ID, e.Vector(c.Text)); err != nil {
				return err
			}
		}
		return tx.SetVectorState(store.VectorState{Active: e.Fingerprint})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hybridStore(t *testing.T) (*store.DB, *conceptembed.Embedder) {
	db := storeWith(t,
		testNote{path: "/a/cars.md", tags: []string{"home"}, mtime: day, texts: []string{
			"My sedan needs new tyres before winter."}},
		testNote{path: "/a/garden.md", tags: []string{"home"}, mtime: day, texts: []string{
			"Tomatoes need full sun and regular watering.",
			"Compost improves the soil of the vegetable garden."}},
		testNote{path: "/b/work.md", tags: []string{"work"}, mtime: day.AddDate(0, 1, 0), texts: []string{
			"The quarterly report is due on Friday.",
			"The automobile fleet report: two vans."}},
	)
	e := conceptembed.New("fp-a")
	embedStore(t, db, e)
	return db, e
}

func TestHybridFindsWhatBM25Misses(t *testing.T) {
	db, e := hybridStore(t)
	bm := New(Config{DB: db})
	res, err := bm.Recall(context.Background(), memd.RecallRequest{Query: "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/b/work.md:11"}) {
		t.Fatalf("BM25 alone: %v", got)
	}

	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	res, err = s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", K: 2, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("warnings %v", res.Warnings)
	}
	got := paths(res.Hits)
	if !slices.Equal(got, []string{"/b/work.md:11", "/a/cars.md:1"}) {
		t.Fatalf("hybrid: %v", got)
	}
	// In both lists, then first in the vector list alone.
	if w := res.Hits[0].Why; len(w) != 2 || w[0].List != "bm25" || w[0].Rank != 1 || w[1].List != "vector" || w[1].Rank != 2 {
		t.Errorf("first why %+v", w)
	}
	if w := res.Hits[1].Why; len(w) != 1 || w[0].List != "vector" || w[0].Rank != 1 || w[0].Score <= 0.9 {
		t.Errorf("second why %+v", w)
	}
	// On fusion's scale: over the score of a chunk first in both lists.
	if want := (1.0/61 + 1.0/62) / (2.0 / 61); math.Abs(res.Hits[0].Score-want) > 1e-12 {
		t.Errorf("fused score %v, want %v", res.Hits[0].Score, want)
	}
	if !slices.Contains(e.Queries(), "automobile") {
		t.Errorf("queries sent as %q", e.Queries())
	}
}

// A chunk of template boilerplate (stored without terms) is shown with
// its note but is no hit, not even by its vector.
func TestHybridLeavesBoilerplateOut(t *testing.T) {
	db, e := hybridStore(t)
	footer := store.NewChunk{Chunk: store.Chunk{StartLine: 20, EndLine: 22,
		Text: "Made from the automobile template: every automobile page ends so."}}
	if err := db.Update(func(tx *store.Tx) error {
		n := &store.Note{Path: "/a/van.md", Folder: "/a", Hash: "van"}
		_, err := tx.PutNote(n, []store.NewChunk{footer})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	embedStore(t, db, e)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/b/work.md:11", "/a/cars.md:1"}) {
		t.Fatalf("hybrid: %v, want no hit of the boilerplate chunk", got)
	}
}

func TestHybridFiltersBothLists(t *testing.T) {
	db, e := hybridStore(t)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	cases := []struct {
		name string
		f    memd.Filters
		want []string
	}{
		{"tag", memd.Filters{Tags: []string{"home"}}, []string{"/a/cars.md:1"}},
		{"folder", memd.Filters{Folder: "/b"}, []string{"/b/work.md:11"}},
		{"prefix", memd.Filters{PathPrefix: "/a/c"}, []string{"/a/cars.md:1"}},
		{"modified after", memd.Filters{ModifiedAfter: day.AddDate(0, 0, 1)}, []string{"/b/work.md:11"}},
		{"modified before", memd.Filters{ModifiedBefore: day.AddDate(0, 0, 1)}, []string{"/a/cars.md:1"}},
		{"nothing", memd.Filters{Folder: "/c"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", K: 1, Filters: c.f})
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(res.Hits); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestHybridDegradesOnEmbedError(t *testing.T) {
	db, e := hybridStore(t)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	e.Fail(errors.New("decode failed"))
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/b/work.md:11"}) {
		t.Fatalf("got %v", got)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "decode failed") || !strings.Contains(res.Warnings[0], "BM25 alone") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	if w := res.Hits[0].Why; len(w) != 1 || w[0].List != "bm25" {
		t.Errorf("why %+v", w)
	}
}

// TestHybridNothingMatches asks about what no note holds: every vector hit
// is under the calibrated floor, so with an embedder as without one
// nothing is found; a word the embedder relates to a note still finds it.
func TestHybridNothingMatches(t *testing.T) {
	db, e := hybridStore(t)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	for _, q := range []string{"the", "xylophone lessons"} {
		res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("%q: hits %v, want none", q, paths(res.Hits))
		}
	}
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "vehicle", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/a/cars.md:1", "/b/work.md:11"}) {
		t.Errorf("vehicle: hits %v", got)
	}
	// The config's floor, when it sets one, is the floor: -1 lets every
	// vector hit through.
	all := New(Config{DB: db, Embedder: e, VectorFloor: -1})
	defer all.Close()
	if res, err := all.Recall(context.Background(), memd.RecallRequest{Query: "the", K: 3}); err != nil || len(res.Hits) != 3 {
		t.Errorf("no floor: hits %v %v", paths(res.Hits), err)
	}
}

// fixedReranker scores a text by how many times it holds word.
type fixedReranker struct {
	word string
	err  error
	seen int
}

func (r *fixedReranker) Rerank(_ context.Context, _ string, texts []string) ([]float64, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.seen = len(texts)
	out := make([]float64, len(texts))
	for i, t := range texts {
		out[i] = float64(strings.Count(strings.ToLower(t), r.word))
	}
	return out, nil
}

func TestRerank(t *testing.T) {
	db, e := hybridStore(t)
	rr := &fixedReranker{word: "tyres"}
	s := New(Config{DB: db, Embedder: e, Reranker: rr, Fusion: rank.Fusion{RerankDepth: 2}, VectorFloor: -1})
	defer s.Close()
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", K: 3, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if rr.seen != 3 {
		t.Errorf("reranked %d texts, want k=3", rr.seen)
	}
	got := paths(res.Hits)
	if got[0] != "/a/cars.md:1" {
		t.Fatalf("rerank did not promote the tyres chunk: %v", got)
	}
	last := res.Hits[0].Why[len(res.Hits[0].Why)-1]
	if last.List != "rerank" || last.Rank != 1 || last.Score != 1 || res.Hits[0].Score != 1 {
		t.Errorf("why %+v score %v", res.Hits[0].Why, res.Hits[0].Score)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("scores not falling: %v then %v", res.Hits[i-1].Score, res.Hits[i].Score)
		}
	}

	rr.err = errors.New("reranker broke")
	res, err = s.Recall(context.Background(), memd.RecallRequest{Query: "automobile", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); got[0] != "/b/work.md:11" || len(res.Warnings) != 1 {
		t.Fatalf("a failed rerank keeps the fused order with a warning: %v %q", got, res.Warnings)
	}
}

func TestRerankTail(t *testing.T) {
	hits := []memd.Hit{{ChunkID: 1, Text: "a"}, {ChunkID: 2, Text: "tyres"}, {ChunkID: 3, Text: "b"}, {ChunkID: 4, Text: "c"}}
	if err := rerank(context.Background(), &fixedReranker{word: "tyres"}, "q", hits, 2, false); err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for i, h := range hits {
		ids = append(ids, h.ChunkID)
		if i > 0 && h.Score >= hits[i-1].Score {
			t.Errorf("score %d not below the one before: %v", i, hits)
		}
	}
	if !slices.Equal(ids, []uint64{2, 1, 3, 4}) {
		t.Errorf("order %v", ids)
	}
}

// hybridWant is what a hybrid recall of k hits answers, worked out the
// long way: the chunks in scope found by reading every chunk's note, the
// BM25 list by a full sort, the vector list by the index over those
// chunks alone, fused, and the first k read.
func hybridWant(t *testing.T, s *Service, e *conceptembed.Embedder, q string, f memd.Filters, k int) []memd.Hit {
	t.Helper()
	sv := served(s.vectors)
	depth := s.fusion.ListDepth(k)
	floor, err := sv.Floor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hits := []memd.Hit{}
	err = s.db.View(func(tx *store.Tx) error {
		in := map[uint64]bool{}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			n, err := tx.Note(c.Path)
			in[c.ID] = err == nil && matchNote(f, n)
			return err
		})
		if err != nil {
			return err
		}
		scores, _, err := rank.DefaultBM25.Rank(tx, corpusOf(tx), rank.ParseQuery(q))
		if err != nil {
			return err
		}
		scores = rank.Top(scores, len(scores))
		bm := rank.List{Name: "bm25", Weight: 1}
		for _, sc := range scores {
			if in[sc.Chunk] && len(bm.Entries) < depth {
				bm.Entries = append(bm.Entries, sc)
			}
		}
		vl := rank.List{Name: "vector", Weight: 1}
		inBM25 := map[uint64]bool{}
		for _, sc := range bm.Entries {
			inBM25[sc.Chunk] = true
		}
		for _, r := range sv.Index.Search(e.Vector(q), depth, func(c uint64) bool { return in[c] }) {
			if r.Score > floor || inBM25[r.Chunk] {
				vl.Entries = append(vl.Entries, rank.Scored{Chunk: r.Chunk, Score: float64(r.Score)})
			}
		}
		merged := rank.Fuse(rank.DefaultFusion.K, bm, vl)
		for _, fu := range merged[:min(k, len(merged))] {
			c, err := tx.Chunk(fu.Chunk)
			if err != nil {
				return err
			}
			n, err := tx.Note(c.Path)
			if err != nil {
				return err
			}
			h := hitOf(c, n.Summary, fu.Score)
			for _, w := range fu.Why {
				h.Why = append(h.Why, memd.Reason(w))
			}
			hits = append(hits, h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestHybridFilteredMatchesOracle checks filtered hybrid recall against
// hybridWant and, once the query cannot be embedded, against what BM25
// alone answers (bm25Want), with the warning.
func TestHybridFilteredMatchesOracle(t *testing.T) {
	db := filterStore(t)
	e := conceptembed.New("fp-a")
	embedStore(t, db, e)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	each := func(check func(name, q string, f memd.Filters, k int)) {
		for _, c := range storeFilters {
			for _, q := range filterQueries {
				for _, k := range []int{1, 10, 100} {
					check(c.name, q, c.f, k)
				}
			}
		}
	}
	t.Run("fused", func(t *testing.T) {
		each(func(name, q string, f memd.Filters, k int) {
			want := hybridWant(t, s, e, q, f, k)
			res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: k, Filters: f, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Hits, want) || len(res.Warnings) != 0 {
				t.Errorf("%s, %q, k=%d: got %v %q\nwant %v", name, q, k, paths(res.Hits), res.Warnings, paths(want))
			}
		})
	})
	t.Run("embedder fails", func(t *testing.T) {
		e.Fail(errors.New("decode failed"))
		defer e.Fail(nil)
		warn := []string{"the query could not be embedded (decode failed); recall is BM25 alone"}
		each(func(name, q string, f memd.Filters, k int) {
			for _, explain := range []bool{false, true} {
				want, _ := bm25Want(t, db, q, f, k, explain)
				res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: k, Filters: f, Explain: explain})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res.Hits, want) || !slices.Equal(res.Warnings, warn) {
					t.Errorf("%s, %q, k=%d, explain %v: got %v %q\nwant %v", name, q, k, explain, paths(res.Hits), res.Warnings, paths(want))
				}
			}
		})
	})
}

// served is what v serves now, nil when nothing does.
func served(v *vector.Serving) *vector.Served {
	sv, _ := v.Acquire()
	if sv != nil {
		sv.Release()
	}
	return sv
}

func TestVectorsReembedPreviousGone(t *testing.T) {
	db, a, b := reembedStore(t)
	os.Remove(a.Path)
	open := func(string) (vector.Embedder, error) { t.Fatal("opened a missing file"); return nil, nil }
	s := New(Config{DB: db, Vectors: vector.NewServing(db, vector.ServingConfig{Embedder: b, OpenEmbedder: open})})
	defer s.vectors.Close()
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "automobile"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "BM25 alone") || !strings.Contains(res.Warnings[0], "gone") {
		t.Fatalf("hits %v warnings %q", paths(res.Hits), res.Warnings)
	}
	s.vectors.Switch("fp-b") // re-embed done, though b has no vectors stored here yet
	if err := s.vectors.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res, err = s.Recall(context.Background(), memd.RecallRequest{Query: "automobile"}); err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("after switch %q", res.Warnings)
	}
}

// reembedStore is a store whose active vectors are embedder A's, with the
// configured embedder now B: a re-embed the pipeline has yet to finish.
func reembedStore(t *testing.T) (db *store.DB, a, b *conceptembed.Embedder) {
	db, a = hybridStore(t)
	a.Path = filepath.Join(t.TempDir(), "a.gguf")
	if err := os.WriteFile(a.Path, []byte("model a"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := vector.NewServing(db, vector.ServingConfig{Embedder: a}) // records a's path
	first.Close()
	b = conceptembed.New("fp-b")
	b.Concepts = map[string]int{"car": 4, "automobile": 4, "sedan": 4}
	return db, a, b
}
