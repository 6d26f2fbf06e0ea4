package store

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// termOrder must order terms as strings.Compare does, prefixes of 8 bytes
// that tie (zero bytes, short terms, shared stems) included.
func TestTermOrderIsStringOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 3))
	alphabet := []byte{0, 1, 'a', 'b', 'z', 0x7f, 0x80, 0xff}
	for round := range 200 {
		terms := make([]string, r.IntN(300))
		seen := map[string]bool{}
		for i := range terms {
			var sb strings.Builder
			if round%2 == 0 {
				sb.WriteString("stemmedprefix"[:r.IntN(14)])
			}
			for range r.IntN(12) {
				sb.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			if seen[sb.String()] {
				sb.WriteString("!")
			}
			terms[i] = sb.String()
			seen[terms[i]] = true
		}
		want := make([]int32, len(terms))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
		if got := termOrder(terms); !slices.Equal(got, want) && !sameTerms(terms, got, want) {
			t.Fatalf("round %d: termOrder %v, want %v", round, got, want)
		}
	}
}

// sameTerms reports whether two orders name equal terms place by place
// (terms may repeat, whose indexes may then come in either order).
func sameTerms(terms []string, a, b []int32) bool {
	for i := range a {
		if terms[a[i]] != terms[b[i]] {
			return false
		}
	}
	return true
}
