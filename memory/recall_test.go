package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
)

// testNote is a note put straight into the store, bypassing the pipeline.
type testNote struct {
	path  string
	tags  []string
	mtime time.Time
	texts []string // one chunk each
}

// openTestStore opens a new store in a test's temporary folder, closed
// when the test ends.
func openTestStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "memd.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func storeWith(t testing.TB, notes ...testNote) *store.DB {
	t.Helper()
	db := openTestStore(t)
	err := db.Update(func(tx *store.Tx) error {
		for _, n := range notes {
			var chunks []store.NewChunk
			for i, text := range n.texts {
				chunks = append(chunks, store.NewChunk{
					Chunk: store.Chunk{StartLine: i*10 + 1, EndLine: i*10 + 9, Text: text},
					Terms: termFreqs(text)})
			}
			note := &store.Note{Path: n.path, Folder: filepath.Dir(n.path), Hash: n.path, Tags: n.tags,
				ModTime: n.mtime, Summary: "summary of " + filepath.Base(n.path)}
			if _, err := tx.PutNote(note, chunks); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func paths(hits []memd.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d", h.Path, h.StartLine))
	}
	return out
}

var day = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

func sampleStore(t testing.TB) *Service {
	db := storeWith(t,
		testNote{path: "/a/garden.md", tags: []string{"home"}, mtime: day, texts: []string{
			"Tomatoes need full sun and regular watering.",
			"Compost improves the soil of the vegetable garden."}},
		testNote{path: "/a/work.md", tags: []string{"work"}, mtime: day.AddDate(0, 1, 0), texts: []string{
			"The quarterly report is due on Friday.",
			"Watering schedule for the office plants: Mondays."}},
		testNote{path: "/b/zh.md", mtime: day, texts: []string{"我们明天去北京开会。"}},
	)
	return New(Config{DB: db})
}

func TestRecallRanksByBM25(t *testing.T) {
	s := sampleStore(t)
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering tomatoes", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(res.Hits)
	if len(got) != 2 || got[0] != "/a/garden.md:1" || got[1] != "/a/work.md:11" {
		t.Fatalf("hits %v; want garden's tomato chunk then work's watering chunk", got)
	}
	h := res.Hits[0]
	if h.Folder != "/a" || h.EndLine != 9 || h.Summary != "summary of garden.md" || h.Score <= res.Hits[1].Score {
		t.Errorf("first hit %+v", h)
	}
}

// A recall asked for excerpts finds the same hits, each with its first
// lines in place of its text and summary.
func TestRecallExcerpt(t *testing.T) {
	s := sampleStore(t)
	whole, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering tomatoes", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	e := memd.Excerpt{Lines: 1, Width: 10}
	cut, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering tomatoes", K: 5, Excerpt: &e})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(paths(cut.Hits), paths(whole.Hits)) || len(cut.Hits) != 2 {
		t.Fatalf("hits %v with excerpts, %v without", paths(cut.Hits), paths(whole.Hits))
	}
	h := cut.Hits[0]
	if !reflect.DeepEqual(h.Excerpt, []string{"Tomatoes …"}) || h.Text != "" || h.Summary != "" || h.Score != whole.Hits[0].Score {
		t.Errorf("first hit %+v", h)
	}
}

func TestRecallFilters(t *testing.T) {
	s := sampleStore(t)
	cases := []struct {
		name string
		f    memd.Filters
		want []string
	}{
		{"tag", memd.Filters{Tags: []string{"#work"}}, []string{"/a/work.md:11"}},
		{"path prefix", memd.Filters{PathPrefix: "/a/garden"}, []string{"/a/garden.md:1"}},
		{"folder", memd.Filters{Folder: "/b"}, nil},
		{"modified after", memd.Filters{ModifiedAfter: day.AddDate(0, 0, 1)}, []string{"/a/work.md:11"}},
		{"modified before", memd.Filters{ModifiedBefore: day.AddDate(0, 0, 1)}, []string{"/a/garden.md:1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering", Filters: c.f})
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(res.Hits); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestRecallCJK(t *testing.T) {
	s := sampleStore(t)
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "北京"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); len(got) != 1 || got[0] != "/b/zh.md:1" {
		t.Fatalf("CJK query hits %v", got)
	}
}

func TestRecallRejectsBadRequests(t *testing.T) {
	s := sampleStore(t)
	for _, r := range []memd.RecallRequest{{Query: "  "}, {Query: "x", K: -1}, {Query: "x", K: memd.MaxK + 1}} {
		if _, err := s.Recall(context.Background(), r); !errors.Is(err, memd.ErrBadRequest) {
			t.Errorf("Recall(%+v) error %v, want ErrBadRequest", r, err)
		}
	}
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "the and of"})
	if err != nil || len(res.Hits) != 0 || len(res.Warnings) == 0 {
		t.Errorf("stop-word query: %+v, %v; want no hits and a warning", res, err)
	}
}

// filterStore is 400 notes of two chunks in /x, /y and /z, whose chunks
// share the query words of filterQueries in varying counts and lengths, so
// filters reject many of BM25's best chunks. The ten notes of /z have long
// chunks, which BM25 ranks low: a filter on /z must rank deep.
func filterStore(t testing.TB) *store.DB {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"automobile", "sedan", "vehicle", "report", "quarterly", "garden", "tomato", "beijing"}
	var notes []testNote
	for i := range 400 {
		dir, tags, length := "/x", []string{"work"}, 3
		switch {
		case i%40 == 3:
			dir, length = "/z", 40
		case i%4 == 1:
			dir = "/y"
		}
		if i%3 == 0 {
			tags = []string{"home"}
		}
		var texts []string
		for range 2 {
			ws := make([]string, length+rng.IntN(12))
			for j := range ws {
				if rng.IntN(3) == 0 {
					ws[j] = words[rng.IntN(len(words))]
				} else {
					ws[j] = syntheticWord(100 + rng.IntN(400))
				}
			}
			texts = append(texts, strings.Join(ws, " "))
		}
		notes = append(notes, testNote{path: fmt.Sprintf("%s/n%03d.md", dir, i), tags: tags,
			mtime: day.AddDate(0, 0, i%60), texts: texts})
	}
	return storeWith(t, notes...)
}

var filterQueries = []string{"automobile report", "tomato garden quarterly", "beijing"}

var storeFilters = []struct {
	name string
	f    memd.Filters
}{
	{"none", memd.Filters{}},
	{"folder", memd.Filters{Folder: "/y"}},
	{"deep folder", memd.Filters{Folder: "/z/"}},
	{"prefix", memd.Filters{PathPrefix: "/x/n1"}},
	{"prefix in folder", memd.Filters{Folder: "/x", PathPrefix: "/x/n1"}},
	{"prefix around folder", memd.Filters{Folder: "/y", PathPrefix: "/"}},
	{"prefix outside folder", memd.Filters{Folder: "/y", PathPrefix: "/x/"}},
	{"tag", memd.Filters{Tags: []string{"#home"}}},
	{"tag and folder", memd.Filters{Folder: "/z", Tags: []string{"home"}}},
	{"modified", memd.Filters{ModifiedAfter: day.AddDate(0, 0, 50), ModifiedBefore: day.AddDate(0, 0, 55)}},
	{"nothing", memd.Filters{Folder: "/w"}},
}

// bm25Want is what a BM25 recall of n hits answers, worked out the long
// way: every scored chunk sorted, then read with its note in that order
// and kept when the note passes f. deepest is the position in the sorted
// list of the last chunk kept.
func bm25Want(t *testing.T, db *store.DB, q string, f memd.Filters, n int, explain bool) (hits []memd.Hit, deepest int) {
	t.Helper()
	hits = []memd.Hit{}
	err := db.View(func(tx *store.Tx) error {
		scores, _, err := rank.DefaultBM25.Rank(tx, corpusOf(tx), rank.ParseQuery(q))
		if err != nil {
			return err
		}
		slices.SortFunc(scores, func(a, b rank.Scored) int {
			if rank.Better(a, b) {
				return -1
			}
			return 1
		})
		for i, sc := range scores {
			c, err := tx.Chunk(sc.Chunk)
			if err != nil {
				return err
			}
			note, err := tx.Note(c.Path)
			if err != nil {
				return err
			}
			if !matchNote(f, note) {
				continue
			}
			h := hitOf(c, note.Summary, oneListScore(len(hits)+1))
			if explain {
				h.Why = []memd.Reason{{List: "bm25", Rank: len(hits) + 1, Score: sc.Score}}
			}
			hits, deepest = append(hits, h), i+1
			if len(hits) == n {
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits, deepest
}

// oneListScore is the score of the hit at rank r of a recall that fuses
// one list: 1/(k+r) over 1/(k+1), the score of its first.
func oneListScore(r int) float64 {
	k := rank.DefaultFusion.K
	return 1 / float64(k+r) / (1 / float64(k+1))
}

func TestRecallFilteredMatchesFullSort(t *testing.T) {
	db := filterStore(t)
	s := New(Config{DB: db})
	deepened := 0
	for _, c := range storeFilters {
		for _, q := range filterQueries {
			for _, k := range []int{1, 10, 100} {
				want, deepest := bm25Want(t, db, q, c.f, k, true)
				if deepest > 4*k+50 {
					deepened++
				}
				res, err := s.Recall(context.Background(), memd.RecallRequest{Query: q, K: k, Filters: c.f, Explain: true})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res.Hits, want) || len(res.Warnings) != 0 {
					t.Errorf("%s, %q, k=%d: got %v %q\nwant %v", c.name, q, k, paths(res.Hits), res.Warnings, paths(want))
				}
			}
		}
	}
	if deepened < 3 {
		t.Errorf("only %d cases rank past the first depth; the store no longer tests deepening", deepened)
	}
}

// TestBM25Deepens has 400 notes that say "tyre" twice in three words, which
// BM25 ranks above the five of /y that say it once among more words: a
// filter on /y finds those only past two deepenings.
func TestBM25Deepens(t *testing.T) {
	var notes []testNote
	for i := range 400 {
		notes = append(notes, testNote{path: fmt.Sprintf("/x/%03d.md", i), texts: []string{"tyre tyre road"}})
	}
	fillers := []string{"wheel", "winter", "spare", "pressure", "valve"}
	for i := range 5 {
		notes = append(notes, testNote{path: fmt.Sprintf("/y/%d.md", i+1), texts: []string{"tyre " + strings.Join(fillers[:i+1], " ")}})
	}
	s := New(Config{DB: storeWith(t, notes...)})
	cases := []struct {
		k    int
		f    memd.Filters
		want []string
	}{
		{3, memd.Filters{Folder: "/y"}, []string{"/y/1.md:1", "/y/2.md:1", "/y/3.md:1"}},
		{10, memd.Filters{Folder: "/y"}, []string{"/y/1.md:1", "/y/2.md:1", "/y/3.md:1", "/y/4.md:1", "/y/5.md:1"}},
		{2, memd.Filters{PathPrefix: "/y/4"}, []string{"/y/4.md:1"}},
		{2, memd.Filters{PathPrefix: "/x/39"}, []string{"/x/390.md:1", "/x/391.md:1"}},
	}
	for _, c := range cases {
		res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "tyre", K: c.k, Filters: c.f, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(res.Hits); !slices.Equal(got, c.want) {
			t.Errorf("k=%d %+v: got %v, want %v", c.k, c.f, got, c.want)
		}
		for i, h := range res.Hits {
			if len(h.Why) != 1 || h.Why[0].List != "bm25" || h.Why[0].Rank != i+1 || h.Score != oneListScore(i+1) {
				t.Errorf("k=%d %+v: hit %d why %+v score %v", c.k, c.f, i, h.Why, h.Score)
			}
		}
	}
}
