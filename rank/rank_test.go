package rank

import (
	"fmt"
	"testing"
)

func TestTopScoredMatchesFullSort(t *testing.T) {
	var s []Scored
	for i := 0; i < 500; i++ {
		s = append(s, Scored{Chunk: uint64(i), Score: float64((i * 7919) % 97)})
	}
	full := append([]Scored(nil), s...)
	sortScored(full)
	top := Top(append([]Scored(nil), s...), 20)
	if fmt.Sprint(top) != fmt.Sprint(full[:20]) {
		t.Fatalf("Top differs from sort:\n%v\n%v", top, full[:20])
	}
}

func TestQueryDropsQuestionWords(t *testing.T) {
	cases := []struct{ q, want string }{
		{"how do I create a new vault", "[creat new vault]"},
		{"what did we decide about tomatoes?", "[decid about tomato]"},
		{"how do I", "[how do i]"}, // nothing else to look for: keep them
	}
	for _, c := range cases {
		if got := ParseQuery(c.q).Terms; fmt.Sprint(got) != c.want {
			t.Errorf("ParseQuery(%q) = %v, want %s", c.q, got, c.want)
		}
	}
}
