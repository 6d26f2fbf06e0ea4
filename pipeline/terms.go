package pipeline

import (
	"slices"
	"strings"

	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/rank/lexical"
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
type termCounter struct{ lexical.Counter }

// count returns the terms of a chunk: each body term once per occurrence,
// each title-field term weight more times.
func (tc *termCounter) count(body string, titles []string, weight int) []store.TermFreq {
	tc.Reset()
	tc.Add(body, 1)
	if weight > 0 {
		for _, s := range titles {
			tc.Add(s, uint32(weight))
		}
	}
	out := make([]store.TermFreq, 0, tc.Len())
	tc.Each(func(t string, n uint32) { out = append(out, store.TermFreq{Term: t, Freq: n}) })
	return out
}
