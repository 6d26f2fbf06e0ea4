package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// memctl recall asks for the lines it prints, not whole chunks; --json
// and --vimgrep, which print more, ask for the text.
func TestRecallAsksForExcerpts(t *testing.T) {
	svc := recallFake()
	sock := servertest.Socket(t, svc)
	for _, tc := range []struct {
		args []string
		want *memd.Excerpt
	}{
		{[]string{"recall", "tomatoes"}, &memd.DefaultExcerpt},
		{[]string{"recall", "--json", "tomatoes"}, nil},
		{[]string{"recall", "--vimgrep", "tomatoes"}, nil},
	} {
		if _, _, err := run(t, sock, tc.args...); err != nil {
			t.Fatal(err)
		}
		if got := svc.LastRecall.Excerpt; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: excerpt %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

// A daemon older than the excerpt refuses the field, as it refuses every
// field it does not know: memctl asks again for the text and cuts it.
func TestRecallFromDaemonWithoutExcerpts(t *testing.T) {
	svc := recallFake()
	var asked []*memd.Excerpt
	svc.RecallHook = func(_ context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
		asked = append(asked, r.Excerpt)
		if r.Excerpt != nil {
			return memd.RecallResult{}, fmt.Errorf("%w: the request body has unknown field \"excerpt\"; see the API in the README for the fields each route takes", memd.ErrBadRequest)
		}
		return memd.RecallResult{Hits: svc.Notes["/n/garden.md"].Chunks}, nil
	}
	sock := servertest.Socket(t, svc)
	out, _, err := run(t, sock, "recall", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	want := "/n/garden.md:3-9  Garden > Tomatoes  1.250\n    ## Tomatoes\n    Water tomatoes deeply twice a week.\n"
	if out != want || len(asked) != 2 {
		t.Fatalf("asked %d times, got\n%s\nwant\n%s", len(asked), out, want)
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
