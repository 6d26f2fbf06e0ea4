package pipeline

import "testing"

// FuzzChunkAnswer feeds the chunk-answer reader and its repair whatever a
// model may write: no panic, and a repaired list covers blocks lo..hi
// exactly once, in order.
func FuzzChunkAnswer(f *testing.F) {
	for _, s := range []string{
		`{"chunks":[{"start":0,"end":3,"title":"A"},{"start":4,"end":9,"title":"B"}]}`,
		"```json\n{\"chunks\":[{\"start\":\"2\",\"end\":1}]}\n```",
		`[{"start":5},{"start":1,"end":99}]`,
		"0 Intro\n3-5 Middle\n6 End",
		`{"chunks":[{"start":-4,"end":-1}]}`,
		`noise {"chunks":[{"start":1e3,"end":2}]} noise`,
	} {
		f.Add(s, uint8(0), uint8(9))
	}
	f.Fuzz(func(t *testing.T, answer string, lo8, n8 uint8) {
		lo, hi := int(lo8), int(lo8)+int(n8)
		spans, err := parseChunkAnswer(answer)
		if err != nil {
			return
		}
		out, _ := repairSpans(spans, lo, hi, func(b int) bool { return b%4 == 0 })
		if out == nil {
			return
		}
		next := lo
		for _, s := range out {
			if s.start != next || s.end < s.start {
				t.Fatalf("repaired spans %v do not cover %d..%d once, in order", out, lo, hi)
			}
			next = s.end + 1
		}
		if next != hi+1 {
			t.Fatalf("repaired spans %v end at %d, want %d", out, next-1, hi)
		}
	})
}
