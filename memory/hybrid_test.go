package memory

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/store"
)

// conceptEmbedder is a fake embedding model: each dimension is a concept,
// and a text's vector counts the words of each concept it holds, so
// synonyms that share no term are near each other.
type conceptEmbedder struct {
	fp       string
	path     string
	concepts map[string]int
	dim      int

	mu      sync.Mutex
	err     error
	queries []string
	closed  bool
}

var concepts = map[string]int{
	"car": 0, "automobile": 0, "vehicle": 0, "sedan": 0,
	"tomato": 1, "tomatoes": 1, "vegetable": 1, "garden": 1,
	"report": 2, "quarterly": 2, "deadline": 2,
	"beijing": 3, "北京": 3,
}

func newConceptEmbedder(fp string) *conceptEmbedder {
	return &conceptEmbedder{fp: fp, path: "/models/" + fp + ".gguf", concepts: concepts, dim: 8}
}

func (e *conceptEmbedder) vector(text string) []float32 {
	v := make([]float32, e.dim)
	v[e.dim-1] = 0.05 // so no text is the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == '.' || r == ',' || r == ':' || r == '|' || r == '?'
	}) {
		if d, ok := e.concepts[w]; ok {
			v[d]++
		}
	}
	return v
}

func (e *conceptEmbedder) Embed(ctx context.Context, texts []string, _ inference.Priority) ([]inference.Embedding, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	if e.closed {
		return nil, inference.ErrClosed
	}
	out := make([]inference.Embedding, len(texts))
	for i, t := range texts {
		e.queries = append(e.queries, t)
		out[i] = inference.Embedding{Vector: e.vector(t)}
	}
	return out, nil
}

func (e *conceptEmbedder) Info() inference.ModelInfo {
	return inference.ModelInfo{Path: e.path, Fingerprint: e.fp, Architecture: "llama"}
}
func (e *conceptEmbedder) Dim() int { return e.dim }
func (e *conceptEmbedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

func (e *conceptEmbedder) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

func (e *conceptEmbedder) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

// embedStore stores e's vector of every chunk and makes e's vectors active,
// as the pipeline's embed stage would.
func embedStore(t testing.TB, db *store.DB, e *conceptEmbedder) {
	t.Helper()
	err := db.Update(func(tx *store.Tx) error {
		var chunks []*store.Chunk
		if err := tx.ForEachChunk(func(c *store.Chunk) error { chunks = append(chunks, c); return nil }); err != nil {
			return err
		}
		for _, c := range chunks {
			if err := tx.PutVector(e.fp, c.ID, e.vector(c.Text)); err != nil {
				return err
			}
		}
		return tx.SetMeta(pipeline.MetaVectorsActive, []byte(e.fp))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hybridStore(t *testing.T) (*store.DB, *conceptEmbedder) {
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
	e := newConceptEmbedder("fp-a")
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
	if want := 1.0/61 + 1.0/62; math.Abs(res.Hits[0].Score-want) > 1e-12 {
		t.Errorf("fused score %v, want %v", res.Hits[0].Score, want)
	}
	if q := e.queries[len(e.queries)-1]; q != "automobile" {
		t.Errorf("query sent as %q", q)
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
	e.fail(errors.New("decode failed"))
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

func TestHybridStopWordsOnly(t *testing.T) {
	db, e := hybridStore(t)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "the", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 3 || len(res.Warnings) != 0 {
		t.Fatalf("hits %v warnings %v: the vector list should answer", paths(res.Hits), res.Warnings)
	}
}

func TestQueryText(t *testing.T) {
	gemma := inference.ModelInfo{Architecture: "gemma-embedding"}
	if got := QueryText(gemma, "tyres"); got != "task: search result | query: tyres" {
		t.Errorf("gemma: %q", got)
	}
	if got := QueryText(inference.ModelInfo{Architecture: "gemma3", Name: "Embedding-Gemma 300m"}, "tyres"); got != "task: search result | query: tyres" {
		t.Errorf("gemma by name: %q", got)
	}
	if got := QueryText(inference.ModelInfo{Architecture: "bert"}, "tyres"); got != "tyres" {
		t.Errorf("generic: %q", got)
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
	s := New(Config{DB: db, Embedder: e, Reranker: rr, Fusion: Fusion{RerankDepth: 2}})
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
func hybridWant(t *testing.T, s *Service, e *conceptEmbedder, q string, f memd.Filters, k int) []memd.Hit {
	t.Helper()
	sv, _ := s.vectors.searchable()
	depth := s.fusion.depth(k)
	hits := []memd.Hit{}
	terms, qtf := queryTerms(q)
	err := s.db.View(func(tx *store.Tx) error {
		in := map[uint64]bool{}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			n, err := tx.Note(c.Path)
			in[c.ID] = err == nil && matchNote(f, n)
			return err
		})
		if err != nil {
			return err
		}
		scores, err := DefaultBM25.rank(tx, terms, qtf)
		if err != nil {
			return err
		}
		sortScored(scores)
		bm := fusedList{name: "bm25", weight: 1}
		for _, sc := range scores {
			if in[sc.chunk] && len(bm.entries) < depth {
				bm.entries = append(bm.entries, ranked{chunk: sc.chunk, score: sc.score})
			}
		}
		vl := fusedList{name: "vector", weight: 1}
		for _, r := range sv.index.Search(e.vector(q), depth, func(c uint64) bool { return in[c] }) {
			vl.entries = append(vl.entries, ranked{chunk: r.Chunk, score: float64(r.Score)})
		}
		merged := fuse(DefaultFusion.K, bm, vl)
		for _, fu := range merged[:min(k, len(merged))] {
			c, err := tx.Chunk(fu.chunk)
			if err != nil {
				return err
			}
			n, err := tx.Note(c.Path)
			if err != nil {
				return err
			}
			h := hitOf(c, n.Summary, fu.score)
			h.Why = fu.why
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
	e := newConceptEmbedder("fp-a")
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
		e.fail(errors.New("decode failed"))
		defer e.fail(nil)
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
