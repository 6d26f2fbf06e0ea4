package rank

import (
	"maps"
	"slices"
	"testing"
)

func dictOf(df map[string]int) *Dictionary {
	return NewDictionary(func(fn func(string, int)) {
		for t, n := range df {
			fn(t, n)
		}
	})
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"backlink", "backlink", 0},
		{"bakclink", "backlink", 1}, // swap
		{"backlnk", "backlink", 1},  // deletion
		{"backklink", "backlink", 1},
		{"bacxlink", "backlink", 1},
		{"hierarhci", "hierarchi", 1},
		{"refactr", "refactor", 1},
		{"jurnal", "journal", 1},
		{"daly", "daili", 2},
		{"abcdef", "ghijkl", 3}, // over the budget of 2
	}
	for _, c := range cases {
		if got := editDistance([]rune(c.a), []rune(c.b), 2); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	d := dictOf(map[string]int{
		"backlink": 40, "hierarchi": 12, "refactor": 9, "journal": 30, "daili": 25,
		"note": 300, "nose": 2, "rare": 1, "brca1": 50, "北京": 9,
	})
	cases := []struct {
		term, want string
		edits      int
	}{
		{"bakclink", "backlink", 1},
		{"hierarhci", "hierarchi", 1},
		{"refactr", "refactor", 1},
		{"jurnal", "journal", 1},
		{"backlnks", "backlink", 2},
		{"notr", "note", 1},   // note beats nose: same distance, more chunks
		{"rarr", "", 0},       // rare is in one chunk: not a correction
		{"brca2", "", 0},      // not letters: never corrected
		{"not", "", 0},        // too short to correct
		{"xyzzyplugh", "", 0}, // nothing near
	}
	for _, c := range cases {
		s, ok := d.Suggest(c.term)
		if c.want == "" {
			if ok {
				t.Errorf("Suggest(%q) = %+v, want none", c.term, s)
			}
			continue
		}
		if !ok || s.Term != c.want || s.Edits != c.edits {
			t.Errorf("Suggest(%q) = %+v %v, want %s at %d edits", c.term, s, ok, c.want, c.edits)
		}
	}
}

func TestCorrect(t *testing.T) {
	d := dictOf(map[string]int{"backlink": 40, "graph": 80, "grape": 3})
	q := ParseQuery("bakclinks graph grapw")
	df := []int{0, 80, 0}
	calls := 0
	dict := func() *Dictionary { calls++; return d }
	got, fixes := DefaultTypos.Correct(q, df, dict)
	if !slices.Equal(got.Terms, []string{"backlink", "graph"}) {
		t.Fatalf("terms %v", got.Terms)
	}
	if got.Weights["backlink"] != 0.8 || got.Weights["graph"] != 1+0.8 {
		t.Errorf("weights %v", got.Weights)
	}
	if want := []Correction{{From: "bakclink", To: "backlink"}, {From: "grapw", To: "graph"}}; !slices.Equal(fixes, want) {
		t.Errorf("fixes %v, want %v", fixes, want)
	}
	// Without the notes' spelling (Word), the term in the typed word's case.
	if text := CorrectText("Bakclinks graph grapw", fixes); text != "Backlink graph graph" {
		t.Errorf("corrected text %q", text)
	}

	// A rare term stays beside its correction; a known one is never looked up.
	got, fixes = DefaultTypos.Correct(ParseQuery("grape"), []int{1}, dict)
	if !slices.Equal(got.Terms, []string{"grape", "graph"}) || got.Weights["grape"] != 1 {
		t.Errorf("rare: %+v", got)
	}
	if want := []Correction{{From: "grape", To: "graph", Kept: true}}; !slices.Equal(fixes, want) {
		t.Errorf("rare fixes %v, want %v", fixes, want)
	}
	calls = 0
	if got, fixes := DefaultTypos.Correct(q, []int{40, 80, 5}, dict); len(fixes) != 0 || calls != 0 || !slices.Equal(got.Terms, q.Terms) {
		t.Errorf("known terms: %+v %v, %d dictionary calls", got, fixes, calls)
	}
	if _, fixes := (Typos{Off: true}).Correct(q, df, dict); fixes != nil {
		t.Errorf("off: %v", fixes)
	}
}

// The answer says what recall looked for in the user's words, not in the
// index's stems: "showing results for "Mitochondria are involv in
// apoptosis."" was what SciFact's queries got.
func TestCorrectTextSpellsWords(t *testing.T) {
	for _, c := range []struct {
		text  string
		fixes []Correction
		want  string
	}{
		{"The YAP1 and TEAD complex tanslocates into the nucleus",
			[]Correction{{From: "tead", To: "lead", Kept: true, Word: "lead"}, {From: "tansloc", To: "transloc", Word: "translocates"}},
			"The YAP1 and TEAD (or LEAD) complex translocates into the nucleus"},
		{"Mitochondria are uninvolved in apoptosis.", []Correction{{From: "uninvolv", To: "involv", Word: "involved"}},
			"Mitochondria are involved in apoptosis."},
		{"Cataract, trachoma", []Correction{{From: "cataract", To: "attract", Kept: true, Word: "attract"}},
			"Cataract (or Attract), trachoma"},
		{"cells (MPCs) prevent", []Correction{{From: "mpcs", To: "mscs", Kept: true, Word: "MSCs"}},
			"cells (MPCs (or MSCs)) prevent"},
		{"(grapw)", []Correction{{From: "grapw", To: "graph"}}, "(graph)"},
		// A sentence's capital in the notes is not the word's own.
		{"bakclinks", []Correction{{From: "bakclink", To: "backlink", Word: "Backlinks"}}, "backlinks"},
		{"nothing here", []Correction{{From: "zzz", To: "zz"}}, "nothing here"},
	} {
		if got := CorrectText(c.text, c.fixes); got != c.want {
			t.Errorf("CorrectText(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	typed := TypedWords("Mitochondria are Uninvolved.", []Correction{{From: "uninvolv", To: "involv"}})
	if typed["uninvolv"] != "uninvolved" {
		t.Errorf("TypedWords: %v", typed)
	}
}

func TestDictionaryDocFreq(t *testing.T) {
	d := NewDictionary(func(fn func(string, int)) {
		for term, df := range map[string]int{"garden": 7, "tomato": 2, "once": 1, "2026": 9} {
			fn(term, df)
		}
	})
	for _, c := range []struct {
		term  string
		df    int
		known bool
	}{{"garden", 7, true}, {"tomato", 2, true}, {"once", 0, true}, {"never", 0, true}, {"2026", 0, false}} {
		if df, known := d.DocFreq(c.term); df != c.df || known != c.known {
			t.Errorf("DocFreq(%q) = %d, %v; want %d, %v", c.term, df, known, c.df, c.known)
		}
	}
}

// The dictionary's deletions (eachDeletion, no strings made) are the
// strings a query's deletions are looked up by (deletions), one entry per
// set of positions, so the table holds each string and no other.
func TestEachDeletionMatchesDeletions(t *testing.T) {
	for _, term := range []string{"", "a", "ab", "boot", "garden", "backlinks", "häßlichkeit", "ééééééééé"} {
		want := map[string]bool{}
		for _, s := range deletions([]rune(term), typoMaxEdits) {
			want[s] = true
		}
		got := map[string]bool{}
		calls := 0
		eachDeletion(nil, term, func(s []byte) { got[string(s)] = true; calls++ })
		if !maps.Equal(got, want) {
			t.Errorf("%q: eachDeletion made %v, deletions %v", term, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
		if n := deletionCount(min(len([]rune(term)), typoPrefix)); calls != n {
			t.Errorf("%q: %d calls, deletionCount says %d", term, calls, n)
		}
	}
}
