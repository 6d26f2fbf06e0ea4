package pipeline

import (
	"fmt"
	"slices"
	"testing"
)

func spansString(s []chunkSpan) string {
	out := ""
	for i, c := range s {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%d-%d", c.start, c.end)
		if c.title != "" {
			out += ":" + c.title
		}
	}
	return out
}

func TestParseChunkAnswer(t *testing.T) {
	tests := []struct {
		name, answer, want string
		fails              bool
	}{
		{"raw", `{"chunks":[{"start":0,"end":2,"title":"A"},{"start":3,"end":4,"title":"B"}]}`, "0-2:A 3-4:B", false},
		{"fenced", "```json\n{\"chunks\":[{\"start\":1,\"end\":1}]}\n```", "1-1", false},
		{"prose around", `Here you go: {"chunks": [{"start": 0, "end": 5, "title": "All"}]} Hope it helps!`, "0-5:All", false},
		{"numeric strings and floats", `{"chunks":[{"start":"2","end":3.0}]}`, "2-3", false},
		{"missing end", `{"chunks":[{"start":4,"title":"x"}]}`, "4-4:x", false},
		{"entry without start left out", `{"chunks":[{"end":3},{"start":5,"end":6}]}`, "5-6", false},
		{"bare list", `[{"start":0,"end":1},{"start":2,"end":2}]`, "0-1 2-2", false},
		{"empty list", `{"chunks":[]}`, "", false},
		{"outline", "0 memory\n3 notes", "0-2:memory 3-3:notes", false},
		{"outline ranges", "- 0-1: Intro\n- 2-4: Body", "0-1:Intro 2-4:Body", false},
		{"no JSON", "I think the note is about gardening.", "", true},
		{"garbage", `{"chunks": [{"start": 0, "end"`, "", true},
		{"empty answer", "", "", true},
		{"wrong shape", `{"sections":[1,2]}`, "", true},
	}
	for _, tt := range tests {
		got, err := parseChunkAnswer(tt.answer)
		if (err != nil) != tt.fails {
			t.Errorf("%s: err %v, want failure %v", tt.name, err, tt.fails)
			continue
		}
		if s := spansString(got); s != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, s, tt.want)
		}
	}
}

func TestRepairSpans(t *testing.T) {
	headings := map[int]bool{5: true}
	isHeading := func(i int) bool { return headings[i] }
	sp := func(s, e int) chunkSpan { return chunkSpan{start: s, end: e} }
	tests := []struct {
		name    string
		in      []chunkSpan
		want    string
		repairs []string
	}{
		{"valid", []chunkSpan{sp(1, 3), sp(4, 9)}, "1-3 4-9", nil},
		{"inverted swapped", []chunkSpan{sp(3, 1), sp(4, 9)}, "1-3 4-9", []string{repairSwapped}},
		{"out of range dropped", []chunkSpan{sp(1, 9), sp(12, 20)}, "1-9", []string{repairDropped}},
		{"partly out clamped", []chunkSpan{sp(0, 4), sp(5, 14)}, "1-4 5-9", []string{repairClamped}},
		{"overlap trimmed", []chunkSpan{sp(1, 4), sp(3, 9)}, "1-4 5-9", []string{repairOverlap}},
		{"contained dropped", []chunkSpan{sp(1, 9), sp(3, 4)}, "1-9", []string{repairContained}},
		{"unsorted", []chunkSpan{sp(4, 9), sp(1, 3)}, "1-3 4-9", nil},
		{"leading gap", []chunkSpan{sp(3, 9)}, "1-9", []string{repairLead}},
		{"gap joins previous", []chunkSpan{sp(1, 2), sp(4, 9)}, "1-3 4-9", []string{repairGap}},
		{"gap starting at a heading joins next", []chunkSpan{sp(1, 4), sp(7, 9)}, "1-4 5-9", []string{repairGap}},
		{"tail extended", []chunkSpan{sp(1, 3), sp(4, 6)}, "1-3 4-9", []string{repairTail}},
		{"all out of range", []chunkSpan{sp(20, 30), sp(-5, -1)}, "", []string{repairDropped}},
		{"empty", nil, "", nil},
	}
	for _, tt := range tests {
		got, repairs := repairSpans(tt.in, 1, 9, isHeading)
		if s := spansString(got); s != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, s, tt.want)
		}
		if !slices.Equal(repairs, tt.repairs) {
			t.Errorf("%s: repairs %q, want %q", tt.name, repairs, tt.repairs)
		}
	}
}

func TestPlanWindows(t *testing.T) {
	cost := make([]int, 100)
	for i := range cost {
		cost[i] = 30
	}
	ws := planWindows(cost, 1500)
	if len(ws) < 3 {
		t.Fatalf("%d windows for 100 blocks of 30 tokens in 1500", len(ws))
	}
	next := 0
	for i, w := range ws {
		used := answerTokens(w.hi - w.lo + 1)
		for p := w.lo; p <= w.hi; p++ {
			used += cost[p]
		}
		if used > 1500 {
			t.Errorf("window %d: %d tokens over the budget", i, used)
		}
		if w.coreLo != next || w.coreHi < w.coreLo || w.coreLo < w.lo || w.coreHi > w.hi {
			t.Errorf("window %+v: cores do not partition (next %d)", w, next)
		}
		if i > 0 && w.lo > ws[i-1].hi-1 {
			t.Errorf("windows %d and %d do not overlap: %+v %+v", i-1, i, ws[i-1], w)
		}
		next = w.coreHi + 1
	}
	if next != len(cost) {
		t.Errorf("cores end at %d, want %d", next, len(cost))
	}
	if ws := planWindows([]int{5000, 10}, 100); len(ws) != 2 {
		t.Errorf("a block over the budget still takes a window of its own: %+v", ws)
	}
}
