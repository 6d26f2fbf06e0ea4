package memory

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/memd-dev/memd"
)

// citeMarks finds bracketed source numbers: [1], [1, 2], [1; 3], [2-4].
var citeMarks = regexp.MustCompile(`\[\s*(\d{1,3}(?:\s*(?:[,;]|[-–])\s*\d{1,3})*)\s*\]`)

// maxRangeCite bounds a cited range like [1-4], so a year range such as
// [1990-2020] is not read as thirty citations.
const maxRangeCite = 10

// cite maps each distinct [n] of text that names one of the sources to that
// source, in order of first appearance. Numbers that name no source are
// ignored: the model was told not to write them, and a reader cannot follow
// them.
func cite(text string, sources []memd.Source) []memd.Citation {
	out := []memd.Citation{}
	seen := map[int]bool{}
	add := func(n int) {
		if n < 1 || n > len(sources) || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, sources[n-1].Citation())
	}
	for _, m := range citeMarks.FindAllStringSubmatch(text, -1) {
		for part := range strings.FieldsFuncSeq(m[1], func(r rune) bool { return r == ',' || r == ';' }) {
			lo, hi, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
			a, err := strconv.Atoi(strings.TrimSpace(lo))
			if err != nil {
				continue
			}
			if !isRange {
				add(a)
				continue
			}
			b, err := strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || b < a || b-a >= maxRangeCite {
				continue
			}
			for n := a; n <= b; n++ {
				add(n)
			}
		}
	}
	return out
}
