package rank

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomSpan is a sorted run of postings in the span starting at base,
// each chunk's length in lengths.
func randomSpan(rng *rand.Rand, base uint64, n int) ([]Posting, Lengths) {
	ids := map[uint64]bool{}
	for len(ids) < n {
		ids[base+uint64(rng.IntN(BlockSpan))] = true
	}
	set := map[uint64]uint32{}
	var list []Posting
	for id := range ids {
		freq := uint32(1)
		if rng.IntN(4) == 0 {
			freq = 2 + uint32(rng.IntN(300))
		}
		length := uint32(1 + rng.IntN(2000))
		if rng.IntN(50) == 0 {
			length = 70000 // past two bytes
		}
		set[id-base] = length
		list = append(list, Posting{Chunk: id, Freq: freq, Length: length})
	}
	slices.SortFunc(list, ComparePostings)
	return list, SetLengths(nil, set)
}

// A block built in one go or appended to in pieces decodes to its
// postings, with their lengths, and its trailer counts them; built after
// other bytes, it leaves them and is the same block.
func TestBlockRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 128, 1000, BlockSpan} {
		base := uint64(3) << 13
		list, lengths := randomSpan(rng, base, n)
		whole := AppendBlock(nil, nil, list, base)
		var pieces []byte
		for i := 0; i < len(list); {
			j := min(len(list), i+1+rng.IntN(9))
			pieces = AppendBlock(nil, pieces, list[i:j], base)
			i = j
		}
		if into := AppendBlock([]byte("head"), nil, list, base); string(into[:4]) != "head" || !slices.Equal(into[4:], whole) {
			t.Fatalf("%d postings: appended after a head, %q", n, into[:min(len(into), 8)])
		}
		for _, b := range [][]byte{whole, pieces} {
			got, err := DecodeBlock(b, base, lengths, nil)
			if err != nil || !slices.Equal(got, list) {
				t.Fatalf("%d postings: decoded %d, %v", n, len(got), err)
			}
			if BlockLen(b) != n || LastID(b, base) != list[n-1].Chunk {
				t.Fatalf("%d postings: BlockLen %d, LastID %d", n, BlockLen(b), LastID(b, base))
			}
		}
	}
}

// A block whose bytes disagree with its trailer, or are cut, is damaged.
func TestBlockDamaged(t *testing.T) {
	base := uint64(0)
	b := AppendBlock(nil, nil, []Posting{{Chunk: 5, Freq: 1}, {Chunk: 9, Freq: 3}}, base)
	for i := range len(b) {
		if _, err := DecodeBlock(b[:i], base, nil, nil); err == nil {
			t.Errorf("block cut at %d of %d decoded", i, len(b))
		}
	}
	bad := slices.Clone(b)
	bad[len(bad)-1]++ // count
	if _, err := DecodeBlock(bad, base, nil, nil); err == nil {
		t.Error("a block with a wrong count decoded")
	}
}

// Lengths set, cleared and widened keep every other entry, and cut
// trailing zeros.
func TestLengths(t *testing.T) {
	l := SetLengths(nil, map[uint64]uint32{0: 5, 3: 9})
	if !l.Valid() || l.Len() != 4 || l.At(0) != 5 || l.At(3) != 9 || l.At(1) != 0 || l.At(100) != 0 {
		t.Fatalf("lengths %v", l)
	}
	l = SetLengths(l, map[uint64]uint32{2: 1 << 20})
	if !l.Valid() || l[0] != 4 || l.At(0) != 5 || l.At(2) != 1<<20 || l.At(3) != 9 {
		t.Fatalf("widened lengths %v", l)
	}
	if l = SetLengths(l, map[uint64]uint32{3: 0, 2: 0}); l.Len() != 1 || l.At(0) != 5 {
		t.Fatalf("lengths after clearing the tail: %v", l)
	}
	if l = SetLengths(l, map[uint64]uint32{0: 0}); l != nil {
		t.Fatalf("lengths with every chunk gone: %v, want nil", l)
	}
}

// BenchmarkDecodeBlock decodes blocks of a span's common and rare terms:
// ns/op over postings/op is the cost per posting BM25 pays.
func BenchmarkDecodeBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := uint64(0)
	var blocks [][]byte
	var lengths Lengths
	total := 0
	for _, n := range []int{4000, 1000, 300, 100, 30, 10, 3, 1} {
		list, l := randomSpan(rng, base, n)
		if lengths == nil {
			lengths = l
		}
		blocks = append(blocks, AppendBlock(nil, nil, list, base))
		total += n
	}
	var dst []Posting
	for b.Loop() {
		for _, blk := range blocks {
			dst, _ = DecodeBlock(blk, base, lengths, dst[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/posting")
}
