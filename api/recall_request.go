package api

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/memd-dev/memd"
)

// Recall's request and answer are encoded and decoded here by hand, not by
// encoding/json: in a process that makes one request (memctl recall),
// encoding/json's first Marshal and Decode build its reflection caches:
// a fresh process's first encoding of the request and decoding of a
// 6 KB answer took 725 µs with it and 199 µs by hand (medians of 41, on a
// loaded machine; BENCHMARKS.md, "memctl recall without encoding/json").
// The request is byte for byte json.Marshal's; an answer
// in any shape but the one memd writes is left to encoding/json, so the
// result is always encoding/json's (recall_json_test.go checks both).

// appendRecallRequest appends r to b as json.Marshal writes it.
func appendRecallRequest(b []byte, r memd.RecallRequest) ([]byte, error) {
	b = append(b, `{"query":`...)
	b = appendJSONString(b, r.Query)
	if r.K != 0 {
		b = append(b, `,"k":`...)
		b = strconv.AppendInt(b, int64(r.K), 10)
	}
	// omitzero: Filters is sent unless it is the zero value, so an empty
	// but non-nil Tags, or a zero time in a zone, sends {}.
	if f := r.Filters; f.Folder != "" || f.PathPrefix != "" || f.Tags != nil ||
		f.ModifiedAfter != (time.Time{}) || f.ModifiedBefore != (time.Time{}) {
		var err error
		if b, err = appendFilters(append(b, `,"filters":`...), f); err != nil {
			return nil, err
		}
	}
	if r.Explain {
		b = append(b, `,"explain":true`...)
	}
	if r.PerNote {
		b = append(b, `,"per_note":true`...)
	}
	if r.Expand != nil {
		b = strconv.AppendBool(append(b, `,"expand":`...), *r.Expand)
	}
	if e := r.Excerpt; e != nil {
		b = append(b, `,"excerpt":{`...)
		comma := ""
		if e.Lines != 0 {
			b = strconv.AppendInt(append(b, `"lines":`...), int64(e.Lines), 10)
			comma = ","
		}
		if e.Width != 0 {
			b = strconv.AppendInt(append(append(b, comma...), `"width":`...), int64(e.Width), 10)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendFilters appends f, whose fields all have their omitempty and
// omitzero tags, as an object.
func appendFilters(b []byte, f memd.Filters) ([]byte, error) {
	b = append(b, '{')
	start := len(b)
	field := func(name string) {
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), name...), `":`...)
	}
	if f.Folder != "" {
		field("folder")
		b = appendJSONString(b, f.Folder)
	}
	if f.PathPrefix != "" {
		field("path_prefix")
		b = appendJSONString(b, f.PathPrefix)
	}
	if len(f.Tags) > 0 {
		field("tags")
		b = append(b, '[')
		for i, t := range f.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	for _, t := range [...]struct {
		name string
		when time.Time
	}{{"modified_after", f.ModifiedAfter}, {"modified_before", f.ModifiedBefore}} {
		if t.when.IsZero() {
			continue
		}
		text, err := t.when.MarshalJSON()
		if err != nil {
			return nil, err
		}
		field(t.name)
		b = append(b, text...)
	}
	return append(b, '}'), nil
}

// appendJSONString appends s quoted as encoding/json quotes it: <, > and &
// escaped, as are U+2028 and U+2029, and invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
