package lexical

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestCounterMatchesTerms: a Counter's counts are exactly the counts of the
// terms Terms returns, weights applied, across units that share its cache.
func TestCounterMatchesTerms(t *testing.T) {
	texts := pieces(vaultText()+strings.Repeat("北京大学の東京タワー。Café naïve running RUNS ran. ", 50), 700)
	var c Counter
	plain := Analyzer{bare: true} // analyzes every word afresh: the reference
	for i, text := range texts {
		title := fmt.Sprintf("Notes on running %d", i)
		want := map[string]uint32{}
		for _, term := range plain.Terms(text) {
			want[term]++
		}
		for _, term := range plain.Terms(title) {
			want[term] += 3
		}
		c.Reset()
		c.Add(text, 1)
		c.Add(title, 3)
		c.Add("ignored entirely", 0)
		got := map[string]uint32{}
		c.Each(func(_ uint32, term string, n uint32) {
			if _, dup := got[term]; dup {
				t.Fatalf("piece %d: term %q reported twice", i, term)
			}
			got[term] = n
		})
		if !maps.Equal(got, want) || c.Len() != len(want) {
			t.Fatalf("piece %d: counted %v, want %v", i, got, want)
		}
	}
}

// TestCounterForgetsPastItsTable: past maxTableWords distinct terms the
// table starts over at the next Reset, and counting stays right.
func TestCounterForgetsPastItsTable(t *testing.T) {
	var c Counter
	var b strings.Builder
	for i := range maxTableWords + 10 {
		fmt.Fprintf(&b, "w%d ", i)
	}
	c.Add(b.String(), 1)
	if c.Len() != maxTableWords+10 {
		t.Fatalf("Len = %d, want %d", c.Len(), maxTableWords+10)
	}
	numbers := map[string]uint32{}
	c.Each(func(num uint32, term string, _ uint32) { numbers[term] = num })
	if c.Numbering() != 0 {
		t.Fatalf("Numbering %d before the table starts over, want 0", c.Numbering())
	}
	c.Reset()
	if len(c.an.terms) != 0 || c.Len() != 0 {
		t.Fatalf("after Reset: %d terms in the table, %d counted", len(c.an.terms), c.Len())
	}
	if c.Numbering() != 1 {
		t.Fatalf("Numbering %d after the table started over, want 1", c.Numbering())
	}
	c.Add("w7 w7 apples", 2)
	got := map[string]uint32{}
	c.Each(func(num uint32, term string, n uint32) {
		got[term] = n
		if term == "w7" && num == numbers["w7"] {
			t.Errorf("w7 kept its number %d across the new numbering", num) // it was 7th; now it is first
		}
	})
	if want := map[string]uint32{"w7": 4, "appl": 2}; !maps.Equal(got, want) {
		t.Fatalf("counted %v, want %v", got, want)
	}
}
