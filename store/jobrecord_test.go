package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// encodeJob writes what json.Marshal writes, and decodeJob reads it back
// as json.Unmarshal does, for plain paths (its own path) and for paths
// that need escapes (encoding/json's), in any zone and at any attempt.
func TestJobRecordsAreEncodingJSONs(t *testing.T) {
	pieces := []string{"/notes/", "a", "Z9", " ", "-", ".md", "é", "北京", `"`, `\`, "<", ">", "&", "\t", "\x01", "\u2028", "\xff", "~", "{", "}"}
	zones := []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -(5*3600 + 30*60))}
	r := rand.New(rand.NewPCG(3, 4))
	str := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 5000 {
		j := Job{
			Seq: r.Uint64() >> r.IntN(64), Path: str(), Folder: str(),
			Enqueued: time.Unix(r.Int64N(1<<35)-1<<34, r.Int64N(2e9)%1e9*int64(r.IntN(2))).In(zones[r.IntN(len(zones))]),
			Attempts: r.IntN(3) * r.IntN(5),
		}
		if i%100 == 0 {
			j.Enqueued = time.Time{}
		}
		want, werr := json.Marshal(&j)
		got, err := encodeJob(&j)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			t.Fatalf("encodeJob(%+v) = %s, %v; json.Marshal: %s, %v", j, got, err, want, werr)
		}
		var dj, wj Job
		werr = json.Unmarshal(want, &wj)
		err = decodeJob(want, &dj)
		if (err == nil) != (werr == nil) || dj.Seq != wj.Seq || dj.Path != wj.Path || dj.Folder != wj.Folder ||
			dj.Attempts != wj.Attempts || !dj.Enqueued.Equal(wj.Enqueued) || dj.Enqueued.String() != wj.Enqueued.String() {
			t.Fatalf("decodeJob(%s) = %+v, %v; json.Unmarshal: %+v, %v", want, dj, err, wj, werr)
		}
	}
	// A record in another shape (an older writer's field order) is read
	// all the same.
	var j Job
	if err := decodeJob([]byte(`{"path":"/n/a.md","seq":7,"folder":"/n","enqueued":"2026-01-02T03:04:05Z"}`), &j); err != nil || j.Seq != 7 || j.Path != "/n/a.md" {
		t.Errorf("a reordered record: %+v, %v", j, err)
	}
}
