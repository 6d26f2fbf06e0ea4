package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/memd-dev/memd"

	"github.com/memd-dev/memd/rank"
)

func TestRecallCorrectsTypos(t *testing.T) {
	db := storeWith(t,
		testNote{path: "/v/links.md", texts: []string{"Backlinks list the notes that link here."}},
		testNote{path: "/v/graph.md", texts: []string{"The graph view draws backlinks between notes."}},
		testNote{path: "/v/journal.md", texts: []string{"A daily journal note for each day."}},
		testNote{path: "/v/log.md", texts: []string{"Keep the daily log in the journal folder."}},
		testNote{path: "/v/typo.md", texts: []string{"My jurnal has one misspelling."}},
	)
	s := New(Config{DB: db})
	defer s.Close()
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "bakclinks"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/v/links.md:1", "/v/graph.md:1"}) || res.CorrectedQuery != "backlinks" {
		t.Fatalf("hits %v, corrected %q", got, res.CorrectedQuery)
	}

	// "jurnal" is in one chunk and "journal" in two, too few for a
	// correction: the query is taken as it is.
	res, err = s.Recall(context.Background(), memd.RecallRequest{Query: "jurnal"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"/v/typo.md:1"}) || res.CorrectedQuery != "" {
		t.Fatalf("rare term: hits %v, corrected %q", got, res.CorrectedQuery)
	}

	// The query's own spelling ranks above a correction of another word.
	res, err = s.Recall(context.Background(), memd.RecallRequest{Query: "dayly journal"})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); len(got) < 2 || got[0] != "/v/journal.md:1" || res.CorrectedQuery != "daily journal" {
		t.Fatalf("hits %v, corrected %q", got, res.CorrectedQuery)
	}

	off := New(Config{DB: db, Typos: rank.Typos{Off: true}})
	defer off.Close()
	if res, err := off.Recall(context.Background(), memd.RecallRequest{Query: "bakclinks"}); err != nil || len(res.Hits) != 0 {
		t.Fatalf("typo tolerance off: %v %v", paths(res.Hits), err)
	}
}
