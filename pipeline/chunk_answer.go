package pipeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// chunkSpan is one chunk of a model's answer: blocks start..end (parse
// Block.Index, inclusive) and a title, possibly empty.
type chunkSpan struct {
	start, end int
	title      string
}

var errNoChunks = errors.New("the answer holds no chunk list")

// parseChunkAnswer reads the chunk list from a model's answer, leniently:
// the answer as it is, then without a Markdown code fence, then from its
// first '{' to its last '}' (or first '[' to last ']' for a bare list).
// Block numbers may be JSON numbers or numeric strings; a missing end is
// the start. An answer that is no JSON at all is also read as an outline,
// one chunk a line ("3 Title" or "3-5 Title"), when every non-blank line is
// one; see parseOutline.
func parseChunkAnswer(text string) ([]chunkSpan, error) {
	for _, cand := range jsonCandidates(text) {
		if spans, ok := decodeChunks(cand); ok {
			return spans, nil
		}
	}
	if spans, ok := parseOutline(text); ok {
		return spans, nil
	}
	return nil, errNoChunks
}

func jsonCandidates(text string) []string {
	t := strings.TrimSpace(text)
	out := []string{t}
	if i := strings.Index(t, "```"); i >= 0 {
		body := t[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
			body = body[nl+1:] // the info string, e.g. "json"
		}
		if j := strings.Index(body, "```"); j >= 0 {
			body = body[:j]
		}
		out = append(out, strings.TrimSpace(body))
	}
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		out = append(out, t[i:j+1])
	}
	if i, j := strings.IndexByte(t, '['), strings.LastIndexByte(t, ']'); i >= 0 && j > i {
		out = append(out, t[i:j+1])
	}
	return out
}

type answerChunk struct {
	Start *blockNumber `json:"start"`
	End   *blockNumber `json:"end"`
	Title string       `json:"title"`
}

// blockNumber is a block number written as a JSON number or a numeric
// string.
type blockNumber int

func (b *blockNumber) UnmarshalJSON(data []byte) error {
	s := strings.Trim(strings.TrimSpace(string(data)), `"`)
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != float64(int(f)) {
		return errors.New("not a block number")
	}
	*b = blockNumber(f)
	return nil
}

// decodeChunks decodes {"chunks":[...]} or a bare [...]; entries without a
// readable start are left out (the repair counts on the others).
func decodeChunks(s string) ([]chunkSpan, bool) {
	var raw []json.RawMessage
	var obj struct {
		Chunks []json.RawMessage `json:"chunks"`
	}
	bare := false
	if err := json.Unmarshal([]byte(s), &obj); err == nil && obj.Chunks != nil {
		raw = obj.Chunks
	} else if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, false
	} else {
		bare = true
	}
	spans := []chunkSpan{}
	for _, r := range raw {
		var c answerChunk
		if json.Unmarshal(r, &c) != nil || c.Start == nil {
			continue
		}
		sp := chunkSpan{start: int(*c.Start), end: int(*c.Start), title: c.Title}
		if c.End != nil {
			sp.end = int(*c.End)
		}
		spans = append(spans, sp)
	}
	// A bare list counts only when it holds chunks; {"chunks":[]} is an
	// answer, if not a usable one.
	return spans, !bare || len(spans) > 0
}

var outlineLine = regexp.MustCompile(`^(\d+)(?:\s*(?:-|–|\.\.)\s*(\d+))?(?:[\s:.)\]-]+(.*))?$`)

// parseOutline reads an answer written as lines "B title" or "B-B title",
// which small models give when they drop the JSON. A line without an end
// ends where the next chunk starts. Every non-blank line must match.
func parseOutline(text string) ([]chunkSpan, bool) {
	var spans []chunkSpan
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•"))
		if line == "" {
			continue
		}
		m := outlineLine.FindStringSubmatch(line)
		if m == nil {
			return nil, false
		}
		start, _ := strconv.Atoi(m[1])
		end := -1
		if m[2] != "" {
			end, _ = strconv.Atoi(m[2])
		}
		spans = append(spans, chunkSpan{start: start, end: end, title: m[3]})
	}
	for i := range spans {
		if spans[i].end >= 0 {
			continue
		}
		spans[i].end = spans[i].start
		if i+1 < len(spans) && spans[i+1].start > spans[i].start {
			spans[i].end = spans[i+1].start - 1
		}
	}
	return spans, len(spans) > 0
}

// Repairs a chunk answer may need, as repairSpans reports them.
const (
	repairSwapped   = "inverted range swapped"
	repairDropped   = "range outside the note dropped"
	repairClamped   = "range clamped to the note"
	repairContained = "chunk inside another dropped"
	repairOverlap   = "overlap trimmed"
	repairLead      = "leading blocks joined the first chunk"
	repairGap       = "uncovered blocks joined a neighbour"
	repairTail      = "tail joined the last chunk"
)

// repairSpans makes a model's chunk list cover blocks lo..hi exactly once,
// in order, and reports what it changed. The rules, in order:
//   - an inverted range (start > end) is swapped;
//   - a range wholly outside lo..hi is dropped; one partly outside is
//     clamped to it;
//   - ranges are sorted by start (the longer first on a tie); a range
//     inside the ones before it is dropped, one overlapping them starts
//     after them;
//   - blocks before the first range join it; blocks between two ranges
//     join the one before, unless the first of them is a heading (then
//     they join the one after, which a heading introduces);
//   - blocks after the last range join it.
//
// It returns nil when no range is left: the answer cannot be repaired.
func repairSpans(spans []chunkSpan, lo, hi int, isHeading func(int) bool) ([]chunkSpan, []string) {
	var log []string
	note := func(r string) {
		if len(log) == 0 || log[len(log)-1] != r {
			log = append(log, r)
		}
	}
	var in []chunkSpan
	for _, s := range spans {
		if s.start > s.end {
			s.start, s.end = s.end, s.start
			note(repairSwapped)
		}
		if s.end < lo || s.start > hi {
			note(repairDropped)
			continue
		}
		if s.start < lo || s.end > hi {
			s.start, s.end = max(s.start, lo), min(s.end, hi)
			note(repairClamped)
		}
		s.title = cleanTitle(s.title)
		in = append(in, s)
	}
	sortSpans(in)
	var out []chunkSpan
	for _, s := range in {
		covered := lo - 1
		if len(out) > 0 {
			covered = out[len(out)-1].end
		}
		if s.end <= covered {
			note(repairContained)
			continue
		}
		if s.start <= covered {
			s.start = covered + 1
			note(repairOverlap)
		}
		if s.start > covered+1 {
			if len(out) == 0 {
				s.start = lo
				note(repairLead)
			} else if isHeading(covered + 1) {
				s.start = covered + 1
				note(repairGap)
			} else {
				out[len(out)-1].end = s.start - 1
				note(repairGap)
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, log
	}
	if last := &out[len(out)-1]; last.end < hi {
		last.end = hi
		note(repairTail)
	}
	return out, log
}

func sortSpans(s []chunkSpan) {
	slices.SortStableFunc(s, func(a, b chunkSpan) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(b.end, a.end)
	})
}

// maxTitle is the longest chunk title kept from a model, in bytes.
const maxTitle = 120

func cleanTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	t = strings.Trim(t, `"'`)
	if len(t) > maxTitle {
		t = strings.TrimSpace(prefixUTF8(t, maxTitle)) + "…"
	}
	return t
}
