package pipeline

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
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

// fieldsVersion names which fields of a note are indexed beside its body
// and how (noteFields); a store made under another is re-indexed.
const fieldsVersion = 1

// field is a text indexed with a chunk's body, each of its terms counted
// weight times.
type field struct {
	text   string
	weight int
}

// noteFields are the fields every chunk of pn is indexed with beyond its
// titles: the front matter's aliases, description and other strings
// (parse.FrontMatterText), each at its weight in cfg.
//
// This is BM25F as memd's index allows it: one posting per term and chunk,
// so a field's weight multiplies its terms' frequencies at index time and
// the chunk's length counts them, rather than a posting list and a score
// per field. Per-field scores would multiply the index and the work of
// every query by the number of fields, and BM25F's weighted frequencies
// are what the title already was: the query side and the recall latency
// are unchanged. Weights are whole term counts.
func noteFields(pn *parse.Note, cfg Config) []field {
	fm := parse.FrontMatterText(pn.FrontMatter)
	var out []field
	add := func(text string, w int) {
		if w > 0 && strings.TrimSpace(text) != "" {
			out = append(out, field{text, w})
		}
	}
	for _, a := range fm.Aliases {
		add(a, cfg.AliasWeight)
	}
	add(fm.Description, cfg.DescriptionWeight)
	for _, o := range fm.Other {
		add(o, cfg.OtherFieldWeight)
	}
	return out
}

// termCounter counts the terms of chunks, reusing its scratch between them.
// It is not safe for concurrent use.
type termCounter struct {
	lexical.Counter
	// vocab numbers the terms count returns (the Counter's own ids), for
	// the store; a new one each time the Counter's numbering restarts.
	vocab     *store.Vocabulary
	numbering int
	// body holds the text cutBody returns, for count only.
	body []byte
}

// cutBody is text, a chunk's from line start on, without the lines in
// the spans cut (appendBody), held in tc's memory until the next call:
// count reads it, and the Counter keeps no text it counts.
func (tc *termCounter) cutBody(text string, start int, cut [][2]int) string {
	tc.body = appendBody(tc.body[:0], text, start, cut)
	return unsafe.String(unsafe.SliceData(tc.body), len(tc.body))
}

// count returns the terms of a chunk: each body term once per occurrence,
// each title-field term weight more times, and each term of fields its
// field's weight times, numbered in tc.vocab (and named there).
func (tc *termCounter) count(body string, titles []string, weight int, fields []field) []store.TermNum {
	tc.Reset()
	if tc.vocab == nil || tc.Numbering() != tc.numbering {
		tc.vocab, tc.numbering = &store.Vocabulary{}, tc.Numbering()
	}
	tc.Add(body, 1)
	if weight > 0 {
		for _, s := range titles {
			tc.Add(s, uint32(weight))
		}
	}
	for _, f := range fields {
		tc.Add(f.text, uint32(f.weight))
	}
	out := make([]store.TermNum, 0, tc.Len())
	tc.Each(func(num uint32, t string, n uint32) {
		tc.vocab.Name(num, t)
		out = append(out, store.TermNum{Num: num, Freq: n})
	})
	return out
}
