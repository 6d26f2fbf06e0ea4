package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
)

func TestStatusJSON(t *testing.T) {
	svc := recallFake()
	svc.FolderList["/n"] = memd.FolderStatus{Path: "/n", Notes: 1, Watching: true}
	svc.SkipList = []memd.Skip{{Path: "/n/big.log", Reason: "5.0 MB, over the 4 MiB limit"}}
	sock := fakeDaemon(t, svc)
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
	sock := fakeDaemon(t, svc)
	out, _, err := run(t, sock, "status", "--watch")
	if err != nil || !strings.Contains(out, "no folders yet") {
		t.Fatalf("%s %v", out, err)
	}
}
