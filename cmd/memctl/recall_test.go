package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

func recallFake() *apitest.Service {
	svc := apitest.New()
	svc.Notes["/n/garden.md"] = memd.NoteDetail{Path: "/n/garden.md", Chunks: []memd.Hit{{
		Folder: "/n", Path: "/n/garden.md", StartLine: 3, EndLine: 9, Heading: []string{"Garden", "Tomatoes"},
		Text: "## Tomatoes\n\nWater tomatoes deeply twice a week.\n", Summary: "watering", Score: 1.25, ChunkID: 7, Title: "x",
	}}}
	return svc
}

func TestRecallHuman(t *testing.T) {
	sock := servertest.Socket(t, recallFake())
	out, _, err := run(t, sock, "recall", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	want := "/n/garden.md:3-9  Garden > Tomatoes  1.250\n    ## Tomatoes\n    Water tomatoes deeply twice a week.\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// A recall the daemon answered for a corrected spelling says which.
func TestRecallSaysCorrection(t *testing.T) {
	svc := recallFake()
	svc.RecallHook = func(_ context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
		return memd.RecallResult{Hits: svc.Notes["/n/garden.md"].Chunks, CorrectedQuery: "tomato water"}, nil
	}
	sock := servertest.Socket(t, svc)
	out, errOut, err := run(t, sock, "recall", "tomatos watr")
	if err != nil {
		t.Fatal(err)
	}
	if errOut != "showing results for \"tomato water\"\n" || !strings.HasPrefix(out, "/n/garden.md:3-9") {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
}

// recall --json prints the daemon's memd.RecallResult as it is.
func TestRecallJSON(t *testing.T) {
	sock := servertest.Socket(t, recallFake())
	out, _, err := run(t, sock, "recall", "--json", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hits   []map[string]any `json:"hits"`
		TookMS *float64         `json:"took_ms"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(got.Hits) != 1 || got.TookMS == nil {
		t.Fatalf("want {\"hits\":[…],\"took_ms\":…} with one hit, got %s", out)
	}
	var keys []string
	for k := range got.Hits[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"chunk_id", "end_line", "folder", "heading", "path", "score", "start_line", "summary", "text", "title"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("hit keys %v, want %v", keys, want)
	}
	out, _, err = run(t, sock, "recall", "--json", "nothing like it")
	if err != nil || !strings.Contains(out, `"hits": []`) {
		t.Fatalf("no hits: %q %v", out, err)
	}
}

func TestRecallFilters(t *testing.T) {
	svc := recallFake()
	sock := servertest.Socket(t, svc)
	dir := t.TempDir()
	t.Chdir(dir)
	_, _, err := run(t, sock, "recall", "-k", "3", "--folder", ".", "--path", "sub/", "--tag", "a", "--tag", "b",
		"--after", "2026-01-02", "--before", "2026-02-01T10:00:00Z", "water", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	r := svc.LastRecall
	f := r.Filters
	if r.Query != "water tomatoes" || r.K != 3 || f.Folder != real || f.PathPrefix != filepath.Join(real, "sub")+"/" ||
		!reflect.DeepEqual(f.Tags, []string{"a", "b"}) {
		t.Fatalf("request %+v", r)
	}
	if !f.ModifiedAfter.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.Local)) ||
		!f.ModifiedBefore.Equal(time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("dates %v %v", f.ModifiedAfter, f.ModifiedBefore)
	}
}

func TestRecallErrors(t *testing.T) {
	sock := servertest.Socket(t, recallFake())
	tests := []struct {
		args []string
		says string
	}{
		{[]string{"recall", "--after", "yesterday", "x"}, "--after \"yesterday\" is not a date"},
		{[]string{"recall", "-k", "5000", "x"}, `"k" is 5000`},
		{[]string{"recall"}, `say what to recall: memctl recall "`},
	}
	for _, tt := range tests {
		_, _, err := run(t, sock, tt.args...)
		if err == nil || !strings.Contains(describe(err), tt.says) {
			t.Errorf("%v: got %v, want it to say %q", tt.args, err, tt.says)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 150)
	got := excerpt("\n  \none\ntwo\n\nthree\nfour\nfive\n" + long)
	want := []string{"one", "two", "three", "four …"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	if got := excerpt(long); len([]rune(got[0])) != excerptWidth {
		t.Fatalf("long line cut to %d runes", len([]rune(got[0])))
	}
	fits := strings.Repeat("é", excerptWidth)
	if got := excerpt(fits); got[0] != fits {
		t.Errorf("a line of exactly %d runes was cut: %q", excerptWidth, got[0])
	}
	if got := excerpt(fits + "x"); got[0] != strings.Repeat("é", excerptWidth-1)+"…" {
		t.Errorf("a line of %d runes: %q", excerptWidth+1, got[0])
	}
}

// TestRecallWithoutQuery: a recall with no query says how to write one,
// before any daemon is asked.
func TestRecallWithoutQuery(t *testing.T) {
	for _, args := range [][]string{{"recall"}, {"recall", "  "}} {
		_, _, err := run(t, filepath.Join(t.TempDir(), "none.sock"), args...)
		if err == nil || !strings.Contains(err.Error(), `memctl recall "`) || strings.Contains(err.Error(), "arg(s)") {
			t.Errorf("memctl %q: %v", args, err)
		}
	}
}

// --expand asks for query expansion, --expand=false refuses it, and no
// flag leaves it to the daemon's config.
func TestRecallExpand(t *testing.T) {
	svc := recallFake()
	sock := servertest.Socket(t, svc)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"recall", "--expand", "tomatoes"}, "true"},
		{[]string{"recall", "--expand=false", "tomatoes"}, "false"},
		{[]string{"recall", "tomatoes"}, "daemon's default"},
	} {
		if _, _, err := run(t, sock, tc.args...); err != nil {
			t.Fatal(err)
		}
		got := "daemon's default"
		if e := svc.LastRecall.Expand; e != nil {
			got = strconv.FormatBool(*e)
		}
		if got != tc.want || svc.LastRecall.Query != "tomatoes" {
			t.Errorf("%v: expand %s, query %q; want %s", tc.args, got, svc.LastRecall.Query, tc.want)
		}
	}
}
