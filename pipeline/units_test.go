package pipeline

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memd-dev/memd/pipeline/parse"
)

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		52 << 20: "52 MB", 50 << 20: "50 MB", 4 << 20: "4 MB", 1536 << 10: "1.5 MB",
		980 << 10: "980 KB", 12: "12 bytes",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLeadSummary(t *testing.T) {
	long := strings.Repeat("word ", 80)
	tests := []struct{ name, src, want string }{
		{"first sentence", "# T\n\nThe first sentence is long enough to stand alone as a summary of the whole note here. The second is not needed.\n",
			"The first sentence is long enough to stand alone as a summary of the whole note here."},
		{"two short", "---\ntitle: x\n---\n\nShort one. Another **short** one [with a link](http://x). Third.\n",
			"Short one. Another short one with a link."},
		{"wikilink", "See [[notes.other|the other note]] for more!\n", "See the other note for more!"},
		{"list only", "# T\n\n- a list item\n- another\n", "a list item"},
		{"cut at a word", long, strings.TrimSpace(long[:235]) + "…"},
		{"nothing", "# Only a heading\n", ""},
	}
	for _, tt := range tests {
		n, err := parse.Parse("note.md", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		got := leadSummary(n, nil)
		if got != tt.want || len(got) > maxSummary {
			t.Errorf("%s: leadSummary = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestIgnoreRules(t *testing.T) {
	root := tempDir(t)
	writeFile(t, filepath.Join(root, ".gitignore"), "# comment\nbuild/\n*.tmp.md\n/top.md\n!keep.tmp.md\n")
	r, err := loadIgnoreRules(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		dir  bool
		want bool
	}{
		{"notes/a.md", false, false},
		{".git", true, true},
		{"sub/.obsidian", true, true},
		{"node_modules", true, true},
		{".hidden.md", false, true},
		{"build", true, true},
		{"sub/build", true, true},
		{"build.md", false, false},
		{"x.tmp.md", false, true},
		{"keep.tmp.md", false, false},
		{"top.md", false, true},
		{"sub/top.md", false, false},
	}
	for _, tt := range tests {
		if got := r.ignored(filepath.Join(root, tt.path), tt.dir); got != tt.want {
			t.Errorf("ignored(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestTermCounter(t *testing.T) {
	var tc termCounter
	titles := titleFields("Apple pie", "Apple pie", []string{"Apple pie", "Baking"})
	if len(titles) != 2 {
		t.Fatalf("titleFields kept duplicates: %q", titles)
	}
	freq, num := map[string]uint32{}, map[string]uint32{}
	for _, tn := range tc.count("apples are baked in pies; apples", titles, 2, nil) {
		term := tc.vocab.Term(tn.Num)
		freq[term], num[term] = tn.Freq, tn.Num
	}
	// "apple": 2 in the body + 2 for the title; "bake": 1 + 2 for the heading.
	if freq["appl"] != 4 || freq["bake"] != 3 || freq["pie"] != 3 {
		t.Errorf("weighted frequencies %v", freq)
	}
	vocab := tc.vocab
	if got := tc.count("body", titles, 0, nil); len(got) != 1 || tc.vocab.Term(got[0].Num) != "bodi" || got[0].Freq != 1 {
		t.Errorf("unweighted: %v", got)
	}
	// A term keeps its number in the counter's vocabulary from chunk to
	// chunk, which the store dedupes a commit's terms by.
	if got := tc.count("a pie", nil, 0, nil); len(got) != 1 || got[0].Num != num["pie"] || tc.vocab != vocab {
		t.Errorf("pie numbered %v in %p, want %d in %p", got, tc.vocab, num["pie"], vocab)
	}
}

// TestFlatten holds flatten to what it replaced: a replacer of the emphasis
// marks, then strings.Fields joined by single spaces; cut at its limit, it
// gives the same lead sentences.
func TestFlatten(t *testing.T) {
	emphasis := strings.NewReplacer("**", "", "__", "", "`", "")
	want := func(s string) string { return strings.Join(strings.Fields(emphasis.Replace(s)), " ") }
	ends := []string{"sentence. ", "Ends.", "? "}
	pieces := []string{"a", "word", " ", "  ", "\t", "\n", "\r\n", "*", "**", "***", "_", "__", "`", "```", "é", "\u00a0", "\u2003", "\u0085", "北京", "\v", "\f", "x_y", "\xff"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		var b strings.Builder
		for range r.IntN(12 + i%3*100) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if i%2 == 0 && r.IntN(20) == 0 {
				b.WriteString(ends[r.IntN(len(ends))])
			}
		}
		s := b.String()
		if got := string(flatten(nil, s, len(s))); got != want(s) {
			t.Fatalf("flatten(%q) = %q, want %q", s, got, want(s))
		}
		if got := leadSentences(string(flatten(nil, s, flattened-utf8.UTFMax))); got != leadSentences(want(s)) {
			t.Fatalf("lead of %q = %q, want %q", s, got, leadSentences(want(s)))
		}
	}
}
