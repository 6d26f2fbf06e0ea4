package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// A job record is the JSON of Job, which encoding/json writes and reads
// through reflection: a bulk add of SciFact spent 3% of its CPU there,
// queueing each note's job and reading it back. encodeJob and decodeJob
// write and read the same bytes directly when a job's strings need no
// escaping (plain ASCII paths, the common case) and hand anything else to
// encoding/json, so the records are those encoding/json writes either way.

// encodeJob is json.Marshal(j).
func encodeJob(j *Job) ([]byte, error) {
	at, err := j.Enqueued.MarshalJSON() // what encoding/json writes of it
	if err != nil || !plainJSON(j.Path) || !plainJSON(j.Folder) {
		return json.Marshal(j)
	}
	b := make([]byte, 0, 64+len(at)+len(j.Path)+len(j.Folder))
	b = strconv.AppendUint(append(b, `{"seq":`...), j.Seq, 10)
	b = append(append(append(b, `,"path":"`...), j.Path...), '"')
	b = append(append(append(b, `,"folder":"`...), j.Folder...), '"')
	b = append(append(b, `,"enqueued":`...), at...)
	if j.Attempts != 0 {
		b = strconv.AppendInt(append(b, `,"attempts":`...), int64(j.Attempts), 10)
	}
	return append(b, '}'), nil
}

// plainJSON reports whether encoding/json writes s as it is, between
// quotes: printable ASCII but for the quote, the backslash and the HTML
// characters it escapes.
func plainJSON[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// decodeJob is json.Unmarshal(v, j).
func decodeJob(v []byte, j *Job) error {
	if fastDecodeJob(v, j) {
		return nil
	}
	*j = Job{}
	return json.Unmarshal(v, j)
}

// fastDecodeJob reads a record as encodeJob writes it without escapes,
// and reports false for anything else.
func fastDecodeJob(v []byte, j *Job) bool {
	r := jobReader{b: v}
	if !r.lit(`{"seq":`) {
		return false
	}
	seq, ok := r.digits()
	if !ok || !r.lit(`,"path":`) {
		return false
	}
	path, ok := r.str()
	if !ok || !r.lit(`,"folder":`) {
		return false
	}
	folder, ok := r.str()
	if !ok || !r.lit(`,"enqueued":`) {
		return false
	}
	at, ok := r.quoted()
	var enqueued time.Time
	if !ok || enqueued.UnmarshalJSON(at) != nil {
		return false
	}
	var attempts uint64
	if r.lit(`,"attempts":`) {
		if attempts, ok = r.digits(); !ok || attempts > 1<<31-1 {
			return false
		}
	}
	if !r.lit(`}`) || len(r.b) != 0 {
		return false
	}
	*j = Job{Seq: seq, Path: path, Folder: folder, Enqueued: enqueued, Attempts: int(attempts)}
	return true
}

type jobReader struct{ b []byte }

func (r *jobReader) lit(s string) bool {
	if !bytes.HasPrefix(r.b, []byte(s)) {
		return false
	}
	r.b = r.b[len(s):]
	return true
}

// digits reads an unsigned decimal number as encoding/json writes one.
func (r *jobReader) digits() (uint64, bool) {
	n := 0
	for n < len(r.b) && r.b[n] >= '0' && r.b[n] <= '9' {
		n++
	}
	if n == 0 || n > 1 && r.b[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(r.b[:n]), 10, 64)
	r.b = r.b[n:]
	return v, err == nil
}

// quoted reads a quoted string with no escapes in it, quotes included.
func (r *jobReader) quoted() ([]byte, bool) {
	if len(r.b) == 0 || r.b[0] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(r.b[1:], '"')
	if end < 0 || !plainJSON(r.b[1:1+end]) {
		return nil, false
	}
	q := r.b[:2+end]
	r.b = r.b[2+end:]
	return q, true
}

// str reads a quoted string with no escapes in it.
func (r *jobReader) str() (string, bool) {
	q, ok := r.quoted()
	if !ok {
		return "", false
	}
	return string(q[1 : len(q)-1]), true
}
