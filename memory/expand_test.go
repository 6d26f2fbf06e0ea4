package memory

import (
	"context"
	"slices"
	"testing"

	"github.com/memd-dev/memd"
)

// expansionStore holds two notes about the same thing in different words
// (only the first says "tomato") and filler that makes those words rare.
func expansionStore(t *testing.T, cfg Config) *Service {
	notes := []testNote{
		{path: "/g/tomatoes.md", texts: []string{"Tomatoes want blight spray and staking; mulch keeps blight off the staking canes."}},
		{path: "/g/canes.md", texts: []string{"Staking canes and mulch: spray against blight in June."}},
	}
	for _, text := range []string{"Quarterly report is due Friday.", "Bicycle chain needs oil.", "Read the novel by June.",
		"Call the plumber about the sink.", "Taxes are filed in April."} {
		notes = append(notes, testNote{path: "/o/" + text[:4] + ".md", texts: []string{text}})
	}
	cfg.DB = storeWith(t, notes...)
	s := New(cfg)
	t.Cleanup(func() { s.Close() })
	return s
}

func recallPaths(t *testing.T, s *Service, r memd.RecallRequest) []string {
	t.Helper()
	res, err := s.Recall(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestExpansionFindsANoteInOtherWords(t *testing.T) {
	on, off := true, false
	s := expansionStore(t, Config{})
	if got := recallPaths(t, s, memd.RecallRequest{Query: "tomatoes"}); slices.Contains(got, "/g/canes.md") {
		t.Fatalf("without expansion, hits %v; the canes note never says tomato", got)
	}
	got := recallPaths(t, s, memd.RecallRequest{Query: "tomatoes", Expand: &on})
	if len(got) != 2 || got[0] != "/g/tomatoes.md" || got[1] != "/g/canes.md" {
		t.Fatalf("expanded hits %v; want the tomato note, then the canes note its words found", got)
	}

	byDefault := expansionStore(t, Config{Expand: true})
	if got := recallPaths(t, byDefault, memd.RecallRequest{Query: "tomatoes"}); !slices.Contains(got, "/g/canes.md") {
		t.Errorf("with recall.expand on, hits %v; want the canes note too", got)
	}
	if got := recallPaths(t, byDefault, memd.RecallRequest{Query: "tomatoes", Expand: &off}); slices.Contains(got, "/g/canes.md") {
		t.Errorf(`with "expand": false over recall.expand on, hits %v; want no expansion`, got)
	}
}
