package api

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// awkward holds what a JSON string encoder must escape: quotes, controls,
// HTML's <>&, U+2028/9, invalid UTF-8, and characters past the BMP.
var awkward = []string{
	"", "tomato watering", `say "hi" \ back/slash`, "tab\there\nnew\rline\bback\fform\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "line\u2028sep\u2029para", "bad \xff\xfe utf8 \xc3", "snow ☃ 中文 𝄞 🍅",
}

func TestRecallRequestIsMarshals(t *testing.T) {
	yes, no := true, false
	zoned := time.Time{}.In(time.FixedZone("X", 3600))
	reqs := []memd.RecallRequest{
		{Query: "tomato"},
		{Query: "tomato", K: 10, Excerpt: &memd.DefaultExcerpt},
		{Query: "x", K: -3, Explain: true, PerNote: true, Expand: &yes, Excerpt: &memd.Excerpt{}},
		{Query: "x", Expand: &no, Excerpt: &memd.Excerpt{Width: 7}},
		{Query: "x", Excerpt: &memd.Excerpt{Lines: 2}},
		{Query: "x", Filters: memd.Filters{Tags: []string{}}},
		{Query: "x", Filters: memd.Filters{ModifiedAfter: zoned}},
		{Query: "x", Filters: memd.Filters{Folder: "/n", PathPrefix: "/n/a<b>", Tags: []string{"garden", "garden/bees", "\u2028"},
			ModifiedAfter:  time.Date(2026, 1, 31, 14, 30, 0, 5, time.FixedZone("", -7*3600)),
			ModifiedBefore: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}},
		{Query: "x", Filters: memd.Filters{ModifiedBefore: time.Date(2026, 2, 1, 0, 0, 0, 0, time.Local)}},
	}
	for _, s := range awkward {
		reqs = append(reqs, memd.RecallRequest{Query: s, Filters: memd.Filters{Folder: s, Tags: []string{s, s}}})
	}
	for _, r := range reqs {
		checkRequest(t, r)
	}
}

func checkRequest(t *testing.T, r memd.RecallRequest) {
	t.Helper()
	want, err := json.Marshal(r)
	got, gotErr := appendRecallRequest(nil, r)
	if (err != nil) != (gotErr != nil) {
		t.Fatalf("%+v: error %v, json.Marshal's %v", r, gotErr, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%+v:\ngot  %s\nwant %s", r, got, want)
	}
}

func TestRecallRequestOutOfRangeTime(t *testing.T) {
	r := memd.RecallRequest{Query: "x", Filters: memd.Filters{ModifiedAfter: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, err := appendRecallRequest(nil, r); err == nil {
		t.Fatal("a year past 9999 was encoded; json.Marshal refuses it")
	}
}

func FuzzRecallRequest(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, s, 10, true, int64(0))
	}
	f.Fuzz(func(t *testing.T, query, tag string, k int, explain bool, unix int64) {
		r := memd.RecallRequest{Query: query, K: k, Explain: explain, PerNote: !explain, Filters: memd.Filters{Tags: []string{tag}}}
		if unix != 0 {
			r.Filters.ModifiedAfter = time.Unix(unix, unix%1e9)
		}
		checkRequest(t, r)
	})
}

// answers are recall answers as memd's server encodes them
// (json.Marshal), with every field of the result, a hit and a reason.
func answers() []memd.RecallResult {
	full := memd.Hit{Folder: "/n", Path: "/n/garden.md", StartLine: 3, EndLine: 9, Heading: []string{"Garden", "Tomatoes"},
		Title: "Garden", Text: "## Tomatoes\n\nWater <deeply> & often.\n", Summary: "watering", Score: 0.984375,
		ChunkID: math.MaxUint64, Why: []memd.Reason{{List: "bm25", Rank: 1, Score: 7.21}, {List: "vector", Rank: 3, Score: 1e-7}},
		Excerpt: []string{"## Tomatoes", "", "Water …"}}
	res := []memd.RecallResult{
		{Hits: []memd.Hit{}},
		{Hits: []memd.Hit{}, Warnings: []string{"no vectors yet"}, CorrectedQuery: "Mitochondria are uninvolved (or involved)", TookMS: 0.412},
		{Hits: []memd.Hit{full, {Path: "/n/b.md", Heading: []string{}, Why: []memd.Reason{}, Excerpt: []string{}, Score: 1e21}}, TookMS: 12},
		{Hits: []memd.Hit{{StartLine: -1, EndLine: math.MaxInt, Score: math.SmallestNonzeroFloat64}}, Warnings: []string{}},
	}
	for _, s := range awkward {
		res = append(res, memd.RecallResult{Hits: []memd.Hit{{Path: s, Heading: []string{s}, Title: s, Text: s, Excerpt: []string{s, s}}}, CorrectedQuery: s})
	}
	return res
}

// decodeBoth decodes data by hand and with encoding/json, failing the test
// when the hand decoder succeeds with another result than encoding/json's.
func decodeBoth(t *testing.T, data []byte) (hand bool) {
	t.Helper()
	var want memd.RecallResult
	jsonErr := json.NewDecoder(bytes.NewReader(data)).Decode(&want)
	got := memd.RecallResult{TookMS: -1} // untouched unless the hand decoder succeeds
	if !decodeRecallResult(data, &got) {
		if got.TookMS != -1 {
			t.Fatalf("%q: the hand decoder gave up but changed the result: %+v", data, got)
		}
		return false
	}
	if jsonErr != nil {
		t.Fatalf("%q: decoded by hand, but encoding/json refuses it: %v", data, jsonErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nby hand        %#v\nencoding/json  %#v", data, got, want)
	}
	return true
}

func TestRecallAnswerDecodesAsEncodingJSON(t *testing.T) {
	for _, res := range answers() {
		compact, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		indented, _ := json.MarshalIndent(res, " ", "\t")
		for _, data := range [][]byte{compact, append(compact, '\n'), indented, append(slices.Clip(compact), `{"trailing`...)} {
			if !decodeBoth(t, data) {
				t.Errorf("%s: left to encoding/json; memd writes it, so the hand decoder must read it", data)
			}
		}
	}
}

// What memd does not write is left to encoding/json, which may read it
// otherwise than a plain reading would (a key in another case, a
// duplicate key, a null hit) or refuse it.
func TestRecallAnswerLeftToEncodingJSON(t *testing.T) {
	for _, data := range []string{
		``, `null`, `[]`, `{"hits":[],"unknown":1}`, `{"Hits":[]}`, `{"hits":[],"hits":[]}`, `{"hits":[null]}`,
		`{"h\u0069ts":[]}`, `{"corrected_query":"\ud83c\udf45"}`, `{"corrected_query":"\xff"}`, "{\"corrected_query\":\"\x01\"}",
		`{"took_ms":01}`, `{"took_ms":1.}`, `{"took_ms":"1"}`, `{"took_ms":1e999}`, `{"hits":[{"start_line":1.5}]}`,
		`{"hits":[{"chunk_id":-1}]}`, `{"hits":[{"start_line":9223372036854775808}]}`, `{"hits":[{"why":[{"rank":true}]}]}`,
		`{"hits":[],}`, `{"hits":[1,]}`, `{"hits":[]`, `{"hits"`, `{"took_ms":-}`, `{"corrected_query":"\x"}`, `{"corrected_query":"\u12"}`,
	} {
		if decodeBoth(t, []byte(data)) {
			t.Errorf("%s: decoded by hand; encoding/json should have it", data)
		}
	}
}

// Every field of the answer's types is one the hand decoder knows: a new
// field memd writes would otherwise send every answer to encoding/json.
func TestRecallAnswerFieldsKnown(t *testing.T) {
	for _, tc := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[memd.RecallResult](), resultFields},
		{reflect.TypeFor[memd.Hit](), hitFields},
		{reflect.TypeFor[memd.Reason](), reasonFields},
	} {
		var names []string
		for f := range tc.typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			names = append(names, name)
		}
		if !slices.Equal(names, tc.fields) {
			t.Errorf("%v's JSON fields are %q; the hand decoder knows %q", tc.typ, names, tc.fields)
		}
	}
}

func FuzzRecallAnswer(f *testing.F) {
	for _, res := range answers() {
		data, _ := json.Marshal(res)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { decodeBoth(t, data) })
}

// Recall reads memd's server's answers as encoding/json reads them.
func TestRecallAnswersFromServer(t *testing.T) {
	svc := apitest.New()
	sock := servertest.Socket(t, svc)
	c := NewClient(sock)
	for _, sent := range answers() {
		svc.RecallHook = func(context.Context, memd.RecallRequest) (memd.RecallResult, error) { return sent, nil }
		data, _ := json.Marshal(sent)
		var want memd.RecallResult
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := c.Recall(context.Background(), memd.RecallRequest{Query: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got  %#v\nwant %#v", got, want)
		}
	}
}
