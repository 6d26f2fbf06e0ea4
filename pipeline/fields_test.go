package pipeline

import (
	"testing"

	"github.com/memd-dev/memd/store"
)

// TestFrontMatterFieldsIndexed: the desc, aliases and other strings of a
// note's front matter are terms of each of its chunks, at their weights;
// ids and dates are not.
func TestFrontMatterFieldsIndexed(t *testing.T) {
	src := "---\nid: zq7vx\ntitle: Bees\naliases: [Apis]\ndesc: Keeping hives\nstatus: wintering\n---\n# Bees\n\nThe body says nothing else.\n"
	ti, _, cs := indexOne(t, testConfig(), src)
	if len(cs) != 1 {
		t.Fatalf("%d chunks", len(cs))
	}
	freq := func(term string) uint32 {
		var ps []store.Posting
		_ = ti.db.View(func(tx *store.Tx) error {
			var err error
			ps, err = tx.Postings(term, nil)
			return err
		})
		if len(ps) == 0 {
			return 0
		}
		return ps[0].Freq
	}
	for term, want := range map[string]uint32{"hive": 2, "keep": 2, "api": 2, "winter": 1, "zq7vx": 0} {
		if got := freq(term); got != want {
			t.Errorf("%q counts %d in the chunk, want %d", term, got, want)
		}
	}

	// Negative weights leave the fields out.
	cfg := testConfig()
	cfg.AliasWeight, cfg.DescriptionWeight, cfg.OtherFieldWeight = -1, -1, -1
	ti, _, _ = indexOne(t, cfg, src)
	for _, term := range []string{"hive", "api", "winter"} {
		if got := freq(term); got != 0 {
			t.Errorf("fields off: %q counts %d", term, got)
		}
	}
}
