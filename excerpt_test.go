package memd

import (
	"reflect"
	"strings"
	"testing"
)

func TestExcerptOf(t *testing.T) {
	width := DefaultExcerpt.Width
	long := strings.Repeat("é", 150)
	got := DefaultExcerpt.Of("\n  \none\ntwo  \n\nthree\nfour\nfive\n" + long)
	if want := []string{"one", "two", "three", "four …"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := DefaultExcerpt.Of(long); len([]rune(got[0])) != width {
		t.Fatalf("long line cut to %d runes", len([]rune(got[0])))
	}
	fits := strings.Repeat("é", width)
	if got := DefaultExcerpt.Of(fits); got[0] != fits {
		t.Errorf("a line of exactly %d runes was cut: %q", width, got[0])
	}
	if got := DefaultExcerpt.Of(fits + "x"); got[0] != strings.Repeat("é", width-1)+"…" {
		t.Errorf("a line of %d runes: %q", width+1, got[0])
	}
	if got := (Excerpt{Lines: 1, Width: 3}).Of("abcd\nefg"); !reflect.DeepEqual(got, []string{"ab… …"}) {
		t.Errorf("one line of three runes: %q", got)
	}
	if got := (Excerpt{}).Of("a\nb\nc\nd\ne"); len(got) != DefaultExcerpt.Lines {
		t.Errorf("zero Excerpt gave %d lines, want the default %d", len(got), DefaultExcerpt.Lines)
	}
}

// Cut leaves a hit its excerpt and nothing of its text or summary.
func TestExcerptCut(t *testing.T) {
	hits := []Hit{{Path: "/n/a.md", Text: "# A\n\nbody", Summary: "about a"}, {Path: "/n/b.md"}}
	DefaultExcerpt.Cut(hits)
	want := []Hit{{Path: "/n/a.md", Excerpt: []string{"# A", "body"}}, {Path: "/n/b.md"}}
	if !reflect.DeepEqual(hits, want) {
		t.Fatalf("got %+v, want %+v", hits, want)
	}
}
