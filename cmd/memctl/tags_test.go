package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

func tagsFake() *apitest.Service {
	svc := apitest.New()
	svc.Notes["/n/a.md"] = memd.NoteDetail{Path: "/n/a.md", Tags: []string{"garden", "garden/bees"}}
	svc.Notes["/n/b.md"] = memd.NoteDetail{Path: "/n/b.md", Tags: []string{"garden"}}
	svc.Notes["/n/c.md"] = memd.NoteDetail{Path: "/n/c.md", Tags: []string{"kitchen"}}
	return svc
}

// TestTagsListsCounts: memctl tags names each tag once with its notes, and
// a prefix (with or without '#') keeps the tree under it.
func TestTagsListsCounts(t *testing.T) {
	sock := servertest.Socket(t, tagsFake())
	out, _, err := run(t, sock, "tags", "#garden")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	got := map[string]bool{}
	for _, l := range lines {
		got[l] = true
	}
	for _, want := range []string{"#garden 2 notes", "#garden/bees 1 note"} {
		if !got[want] {
			t.Errorf("memctl tags #garden: no line %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "kitchen") {
		t.Errorf("memctl tags #garden lists another tree:\n%s", out)
	}
	out, _, err = run(t, sock, "--json", "tags")
	if err != nil {
		t.Fatal(err)
	}
	var res memd.TagsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Total != 3 {
		t.Fatalf("memctl --json tags: %v, %+v", err, res)
	}
}
