package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/memd-dev/memd"
)

// perNoteStore has one note whose three chunks all match "watering", the
// second best of them, and another note with one weaker match.
func perNoteStore(t *testing.T) *Service {
	db := storeWith(t,
		testNote{path: "/a/long.md", mtime: day, texts: []string{
			"Watering.",
			"Watering the beans, watering the peas: watering every evening in July.",
			"A note on watering and on other chores of the week, written at length."}},
		testNote{path: "/a/short.md", mtime: day, texts: []string{
			"Some notes about the garden; watering is one of many things done there in summer."}},
	)
	return New(Config{DB: db})
}

func TestRecallPerNote(t *testing.T) {
	s := perNoteStore(t)
	all, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Hits) != 4 {
		t.Fatalf("without per_note: %v, want the 4 chunks", paths(all.Hits))
	}
	one, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering", PerNote: true, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	// Each note's hit is its best chunk, in the order of the full list.
	var want []string
	seen := map[string]bool{}
	for _, h := range all.Hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			want = append(want, paths([]memd.Hit{h})[0])
		}
	}
	if got := paths(one.Hits); !slices.Equal(got, want) {
		t.Fatalf("per_note: %v, want %v", got, want)
	}
	if one.Hits[1].Why[0].Rank != 2 {
		t.Errorf("the second note's hit is ranked %d, want 2", one.Hits[1].Why[0].Rank)
	}
	// K counts notes: one note, its best chunk.
	top, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering", PerNote: true, K: 1})
	if err != nil || len(top.Hits) != 1 || top.Hits[0].ChunkID != all.Hits[0].ChunkID {
		t.Fatalf("per_note k=1: %v %v, want %v", paths(top.Hits), err, paths(all.Hits[:1]))
	}
}

func TestHybridPerNote(t *testing.T) {
	db, e := hybridStore(t)
	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	all, err := s.Recall(context.Background(), memd.RecallRequest{Query: "report automobile", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	one, err := s.Recall(context.Background(), memd.RecallRequest{Query: "report automobile", K: 10, PerNote: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var want []string
	for _, h := range all.Hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			want = append(want, paths([]memd.Hit{h})[0])
		}
	}
	if got := paths(one.Hits); !slices.Equal(got, want) || len(want) == len(all.Hits) {
		t.Fatalf("per_note %v, want %v (from %v)", got, want, paths(all.Hits))
	}
}

// A tag matches the notes tagged with it or with a tag under it.
func TestRecallTagTree(t *testing.T) {
	db := storeWith(t,
		testNote{path: "/a/bees.md", tags: []string{"garden/bees"}, mtime: day, texts: []string{"Watering the hives."}},
		testNote{path: "/a/garden.md", tags: []string{"garden"}, mtime: day, texts: []string{"Watering the beds."}},
		testNote{path: "/a/gardening.md", tags: []string{"gardening"}, mtime: day, texts: []string{"Watering tips."}},
	)
	s := New(Config{DB: db})
	for _, c := range []struct {
		tag  string
		want []string
	}{
		{"garden", []string{"/a/bees.md", "/a/garden.md"}},
		{"#Garden/", []string{"/a/bees.md", "/a/garden.md"}},
		{"garden/bees", []string{"/a/bees.md"}},
		{"garden/be", nil},
		{"gardening", []string{"/a/gardening.md"}},
	} {
		res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering", Filters: memd.Filters{Tags: []string{c.tag}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("tag %q: %v, want %v", c.tag, got, c.want)
		}
	}
}
