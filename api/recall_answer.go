package api

import (
	"bytes"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/memd-dev/memd"
)

// decodeRecallResult decodes a recall's answer into res as encoding/json
// would, and reports whether it could: it knows only the shape memd
// writes (the fields by their exact names, each once, values of their own
// types or null) and returns false, leaving res untouched, on anything
// else (a field it does not know, a key in another case, an escaped key, a
// surrogate escape, invalid UTF-8, a syntax error), which the caller then
// hands to encoding/json. What follows the answer's object is not read, as
// json.Decoder does not.
func decodeRecallResult(data []byte, res *memd.RecallResult) bool {
	d := answerDecoder{b: data}
	var r memd.RecallResult
	ok := d.object(resultFields, func(field int) bool {
		switch field {
		case 0:
			return d.array(func() bool {
				r.Hits = append(r.Hits, memd.Hit{})
				return d.hit(&r.Hits[len(r.Hits)-1])
			}, func() { r.Hits = []memd.Hit{} })
		case 1:
			return d.strings(&r.Warnings)
		case 2:
			return d.string(&r.CorrectedQuery)
		default:
			return d.float(&r.TookMS)
		}
	})
	if ok {
		*res = r
	}
	return ok
}

// The fields' JSON names, in the order of the switches that decode them.
var (
	resultFields = []string{"hits", "warnings", "corrected_query", "took_ms"}
	hitFields    = []string{"folder", "path", "start_line", "end_line", "heading", "title", "text", "summary", "score", "chunk_id", "why", "excerpt"}
	reasonFields = []string{"list", "rank", "score"}
)

func (d *answerDecoder) hit(h *memd.Hit) bool {
	return d.object(hitFields, func(field int) bool {
		switch field {
		case 0:
			return d.string(&h.Folder)
		case 1:
			return d.string(&h.Path)
		case 2:
			return d.int(&h.StartLine)
		case 3:
			return d.int(&h.EndLine)
		case 4:
			return d.strings(&h.Heading)
		case 5:
			return d.string(&h.Title)
		case 6:
			return d.string(&h.Text)
		case 7:
			return d.string(&h.Summary)
		case 8:
			return d.float(&h.Score)
		case 9:
			return d.uint64(&h.ChunkID)
		case 10:
			return d.array(func() bool {
				h.Why = append(h.Why, memd.Reason{})
				return d.reason(&h.Why[len(h.Why)-1])
			}, func() { h.Why = []memd.Reason{} })
		default:
			return d.strings(&h.Excerpt)
		}
	})
}

func (d *answerDecoder) reason(r *memd.Reason) bool {
	return d.object(reasonFields, func(field int) bool {
		switch field {
		case 0:
			return d.string(&r.List)
		case 1:
			return d.int(&r.Rank)
		default:
			return d.float(&r.Score)
		}
	})
}

// answerDecoder reads JSON values from b, from i on. Every method returns
// false on what it cannot decode as encoding/json would.
type answerDecoder struct {
	b []byte
	i int
}

func (d *answerDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips space and consumes c if it comes next.
func (d *answerDecoder) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes a null, which leaves every field encoding/json decodes it
// into as it was: zero, in a result decoded from scratch.
func (d *answerDecoder) null() bool {
	d.space()
	if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// object reads an object whose keys are among fields, each at most once,
// calling value with the key's index to read its value.
func (d *answerDecoder) object(fields []string, value func(field int) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	var seen uint64
	for {
		key, ok := d.key()
		if !ok || !d.next(':') {
			return false
		}
		field := -1
		for i, f := range fields {
			if string(key) == f {
				field = i
				break
			}
		}
		if field < 0 || seen&(1<<field) != 0 {
			return false
		}
		seen |= 1 << field
		if !d.null() && !value(field) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// key reads an object's key without escapes.
func (d *answerDecoder) key() ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	end := bytes.IndexByte(d.b[d.i:], '"')
	if end < 0 {
		return nil, false
	}
	key := d.b[d.i : d.i+end]
	if bytes.IndexByte(key, '\\') >= 0 {
		return nil, false
	}
	d.i += end + 1
	return key, true
}

// array reads an array, calling elem for each element; empty is called
// for [], which encoding/json decodes as an empty slice, not nil.
func (d *answerDecoder) array(elem func() bool, empty func()) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		empty()
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

func (d *answerDecoder) strings(out *[]string) bool {
	return d.array(func() bool {
		var s string
		if !d.null() && !d.string(&s) {
			return false
		}
		*out = append(*out, s)
		return true
	}, func() { *out = []string{} })
}

// string reads a string. Escapes other than a surrogate's \u are decoded
// here; a surrogate, a control character or invalid UTF-8 is left to
// encoding/json.
func (d *answerDecoder) string(out *string) bool {
	if !d.next('"') {
		return false
	}
	start := d.i
	var buf []byte // the string so far, once an escape is met
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			if buf != nil {
				s = append(buf, s...)
			}
			d.i++
			if !utf8.Valid(s) {
				return false
			}
			*out = string(s)
			return true
		case c < ' ':
			return false
		case c == '\\':
			buf = append(buf, d.b[start:d.i]...)
			var ok bool
			if buf, ok = d.escape(buf); !ok {
				return false
			}
			start = d.i
		default:
			d.i++
		}
	}
	return false
}

// escape appends the character of the escape at i to buf.
func (d *answerDecoder) escape(buf []byte) ([]byte, bool) {
	if d.i+1 >= len(d.b) {
		return nil, false
	}
	c := d.b[d.i+1]
	d.i += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c), true
	case 'b':
		return append(buf, '\b'), true
	case 'f':
		return append(buf, '\f'), true
	case 'n':
		return append(buf, '\n'), true
	case 'r':
		return append(buf, '\r'), true
	case 't':
		return append(buf, '\t'), true
	case 'u':
		if d.i+4 > len(d.b) {
			return nil, false
		}
		r, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
		if err != nil || (r >= 0xd800 && r < 0xe000) {
			return nil, false
		}
		d.i += 4
		return utf8.AppendRune(buf, rune(r)), true
	}
	return nil, false
}

// number reads a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *answerDecoder) number() (string, bool) {
	d.space()
	start := d.i
	d.accept('-')
	if !d.accept('0') && d.digits() == 0 {
		return "", false
	}
	if d.accept('.') && d.digits() == 0 {
		return "", false
	}
	if d.accept('e') || d.accept('E') {
		if !d.accept('+') {
			d.accept('-')
		}
		if d.digits() == 0 {
			return "", false
		}
	}
	return string(d.b[start:d.i]), true
}

func (d *answerDecoder) accept(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *answerDecoder) digits() int {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

func (d *answerDecoder) int(out *int) bool {
	s, ok := d.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(s, 10, bits.UintSize)
	*out = int(n)
	return err == nil
}

func (d *answerDecoder) uint64(out *uint64) bool {
	s, ok := d.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	*out = n
	return err == nil
}

func (d *answerDecoder) float(out *float64) bool {
	s, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	*out = f
	return err == nil
}
