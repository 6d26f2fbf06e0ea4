package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/internal/clitext"
	"github.com/memd-dev/memd/server/servertest"
)

func TestStatusJSON(t *testing.T) {
	svc := recallFake()
	svc.FolderList["/n"] = memd.FolderStatus{Path: "/n", Notes: 1, Watching: true}
	svc.SkipList = []memd.Skip{{Path: "/n/big.log", Reason: "5.0 MB, over the 4 MiB limit"}}
	sock := servertest.Socket(t, svc)
	out, _, err := run(t, sock, "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"folders", "notes", "chunks", "pending", "skipped"} {
		if _, ok := got[k]; !ok {
			t.Errorf("status --json lacks %q: %s", k, out)
		}
	}
	if string(got["notes"]) != "1" || string(got["skipped"]) != "1" {
		t.Errorf("counts: %s", out)
	}
	out, _, err = run(t, sock, "status", "--skips")
	if err != nil || !strings.Contains(out, "/n  ") || !strings.Contains(out, "skipped /n/big.log: 5.0 MB") {
		t.Fatalf("human status:\n%s %v", out, err)
	}
}

func TestStatusWatch(t *testing.T) {
	svc := apitest.New()
	sock := servertest.Socket(t, svc)
	out, _, err := run(t, sock, "status", "--watch")
	if err != nil || !strings.Contains(out, "no folders yet") {
		t.Fatalf("%s %v", out, err)
	}
}

// TestWatchIdleDrawsNothing: status --watch on an idle daemon goes
// straight to the status, without flashing a bar ("0/1, 0 notes/hr").
func TestWatchIdleDrawsNothing(t *testing.T) {
	svc := apitest.New()
	svc.WaitIdleHook = func(ctx context.Context) error {
		time.Sleep(1200 * time.Millisecond) // past the first status poll after the start
		return nil
	}
	sock := servertest.Socket(t, svc)
	var bar bytes.Buffer
	_, _, err := runWith(t, sock, &app{barOut: &bar}, "status", "--watch")
	if err != nil || bar.Len() != 0 {
		t.Fatalf("an idle daemon drew %q (%v)", bar.String(), err)
	}
}

// TestWatchHasNoJumpingTotal: the bar counts notes and says what is
// pending, with no total made from pending jobs to jump about.
func TestWatchHasNoJumpingTotal(t *testing.T) {
	svc := apitest.New()
	svc.Pending = 5183
	svc.WaitIdleHook = func(ctx context.Context) error {
		time.Sleep(300 * time.Millisecond)
		return nil
	}
	sock := servertest.Socket(t, svc)
	var bar bytes.Buffer
	if _, _, err := runWith(t, sock, &app{barOut: &bar}, "status", "--watch"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bar.String(), "5183 pending") || regexp.MustCompile(`\d+/\d+`).MatchString(bar.String()) {
		t.Errorf("the bar drew %q", bar.String())
	}
}

// TestStatusSaysEnriching: notes stored with the heuristic's chunks and
// still waiting for the model stages are named, and not on an idle store.
func TestStatusSaysEnriching(t *testing.T) {
	var b strings.Builder
	clitext.Status(&b, memd.Status{Notes: 5, Enriching: 3})
	if !strings.Contains(b.String(), "3 notes findable by keyword, waiting for the model stages") {
		t.Fatalf("status with 3 enriching:\n%s", b.String())
	}
	b.Reset()
	clitext.Status(&b, memd.Status{Notes: 5})
	if strings.Contains(b.String(), "waiting for the model stages") {
		t.Fatalf("status with none enriching:\n%s", b.String())
	}
}
