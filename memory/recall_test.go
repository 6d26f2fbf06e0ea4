package memory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
)

// testNote is a note put straight into the store, bypassing the pipeline.
type testNote struct {
	path  string
	tags  []string
	mtime time.Time
	texts []string // one chunk each
}

func storeWith(t testing.TB, notes ...testNote) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "memd.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	err = db.Update(func(tx *store.Tx) error {
		for _, n := range notes {
			var chunks []store.NewChunk
			for i, text := range n.texts {
				chunks = append(chunks, store.NewChunk{
					Chunk: store.Chunk{StartLine: i*10 + 1, EndLine: i*10 + 9, Text: text},
					Terms: termFreqs(text)})
			}
			note := &store.Note{Path: n.path, Folder: filepath.Dir(n.path), Hash: n.path, Tags: n.tags,
				ModTime: n.mtime, Summary: "summary of " + filepath.Base(n.path)}
			if err := tx.PutNote(note, chunks); err != nil {
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

func paths(hits []Hit) []string {
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
	res, err := s.Recall(context.Background(), RecallRequest{Query: "watering tomatoes", K: 5})
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

func TestRecallFilters(t *testing.T) {
	s := sampleStore(t)
	cases := []struct {
		name string
		f    Filters
		want []string
	}{
		{"tag", Filters{Tags: []string{"#work"}}, []string{"/a/work.md:11"}},
		{"path prefix", Filters{PathPrefix: "/a/garden"}, []string{"/a/garden.md:1"}},
		{"folder", Filters{Folder: "/b"}, nil},
		{"modified after", Filters{ModifiedAfter: day.AddDate(0, 0, 1)}, []string{"/a/work.md:11"}},
		{"modified before", Filters{ModifiedBefore: day.AddDate(0, 0, 1)}, []string{"/a/garden.md:1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Recall(context.Background(), RecallRequest{Query: "watering", Filters: c.f})
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
	res, err := s.Recall(context.Background(), RecallRequest{Query: "北京"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); len(got) != 1 || got[0] != "/b/zh.md:1" {
		t.Fatalf("CJK query hits %v", got)
	}
}

func TestRecallRejectsBadRequests(t *testing.T) {
	s := sampleStore(t)
	for _, r := range []RecallRequest{{Query: "  "}, {Query: "x", K: -1}, {Query: "x", K: MaxK + 1}} {
		if _, err := s.Recall(context.Background(), r); !errors.Is(err, ErrBadRequest) {
			t.Errorf("Recall(%+v) error %v, want ErrBadRequest", r, err)
		}
	}
	res, err := s.Recall(context.Background(), RecallRequest{Query: "the and of"})
	if err != nil || len(res.Hits) != 0 || len(res.Warnings) == 0 {
		t.Errorf("stop-word query: %+v, %v; want no hits and a warning", res, err)
	}
}

func TestTopScoredMatchesFullSort(t *testing.T) {
	var s []scored
	for i := 0; i < 500; i++ {
		s = append(s, scored{chunk: uint64(i), score: float64((i * 7919) % 97)})
	}
	full := append([]scored(nil), s...)
	sortScored(full)
	top := topScored(append([]scored(nil), s...), 20)
	if fmt.Sprint(top) != fmt.Sprint(full[:20]) {
		t.Fatalf("topScored differs from sort:\n%v\n%v", top, full[:20])
	}
}

func TestQueryDropsQuestionWords(t *testing.T) {
	cases := []struct{ q, want string }{
		{"how do I create a new vault", "[creat new vault]"},
		{"what did we decide about tomatoes?", "[decid about tomato]"},
		{"how do I", "[how do i]"}, // nothing else to look for: keep them
	}
	for _, c := range cases {
		if got, _ := queryTerms(c.q); fmt.Sprint(got) != c.want {
			t.Errorf("queryTerms(%q) = %v, want %s", c.q, got, c.want)
		}
	}
}
