package pipeline

import "testing"

func TestBatchBudgetStopsAtBytes(t *testing.T) {
	cases := []struct {
		limit int64
		want  int
	}{{0, 1}, {100, 2}, {250, 3}, {1 << 20, 5}}
	for _, c := range cases {
		b := batchBudget{n: 5, limit: c.limit}
		for {
			if _, ok := b.take(); !ok {
				break
			}
			b.spend(100)
		}
		if got := b.taken(); got != c.want {
			t.Errorf("limit %d: took %d jobs of 100 bytes, want %d", c.limit, got, c.want)
		}
	}
}

func TestPrefixUTF8NeverCutsACharacter(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"日本", 4, "日"}, {"日本", 0, ""}}
	for _, c := range cases {
		if got := prefixUTF8(c.s, c.n); got != c.want {
			t.Errorf("prefixUTF8(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
