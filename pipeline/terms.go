package pipeline

import (
	"slices"
	"strings"

	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/store/lexical"
)

// titleFields are the strings of a chunk that count TitleWeight times: the
// note title, the chunk title and each heading of its path, each once even
// when repeated (a title is often also the first heading).
func titleFields(noteTitle, chunkTitle string, heading []string) []string {
	out := make([]string, 0, 2+len(heading))
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(noteTitle)
	add(chunkTitle)
	for _, h := range heading {
		add(h)
	}
	return out
}

// termCounter counts the terms of chunks, reusing its scratch between them.
// It is not safe for concurrent use.
type termCounter struct {
	an     lexical.Analyzer
	buf    []string
	counts map[string]uint32
}

// count returns the terms of a chunk: each body term once per occurrence,
// each title-field term weight more times. The order is unspecified.
func (tc *termCounter) count(body string, titles []string, weight int) []store.TermFreq {
	if tc.counts == nil {
		tc.counts = make(map[string]uint32, 256)
	}
	clear(tc.counts)
	tc.buf = tc.an.AppendTerms(tc.buf[:0], body)
	for _, t := range tc.buf {
		tc.counts[t]++
	}
	if weight > 0 {
		for _, s := range titles {
			tc.buf = tc.an.AppendTerms(tc.buf[:0], s)
			for _, t := range tc.buf {
				tc.counts[t] += uint32(weight)
			}
		}
	}
	out := make([]store.TermFreq, 0, len(tc.counts))
	for t, n := range tc.counts {
		out = append(out, store.TermFreq{Term: t, Freq: n})
	}
	return out
}
