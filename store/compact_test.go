package store

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// churnedStore is a filled store where a full rewrite of every note left
// about half the file free.
func churnedStore(t *testing.T) string {
	t.Helper()
	path := filledStore(t)
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for n := range 1500 {
		p := fmt.Sprintf("/notes/n%05d.md", n)
		if err := db.Update(func(tx *Tx) error { _, err := tx.DeleteNote(p); return err }); err != nil {
			t.Fatal(err)
		}
		if n%2 == 0 {
			put(t, db, p, fmt.Sprintf("%064x", n+1), chunkOf("rewritten", "again"))
		}
	}
	return path
}

func TestCompactGivesSpaceBack(t *testing.T) {
	path := churnedStore(t)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := dump(t, db)
	sp := db.Space()
	if !sp.Wasteful(0.5, 1<<20) {
		t.Fatalf("after deleting every note the store is not wasteful: %+v", sp)
	}
	before, after, err := db.Compact()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compacted %d → %d bytes (%+v before)", before, after, sp)
	if after > 2*sp.LiveBytes || after >= before/4 {
		t.Fatalf("compaction took %d bytes to %d, with %d live", before, after, sp.LiveBytes)
	}
	if got := dump(t, db); !maps.Equal(got, want) {
		t.Fatal("the compacted store differs from the original")
	}
	put(t, db, "/notes/after.md", "ab", chunkOf("written after compaction", "after"))
	if p := postings(t, db, "after"); len(p) != 1 {
		t.Fatalf("a write after compaction: %v", p)
	}
	// The terms of the deleted notes keep their ids; a new term must not
	// reuse one (the dictionary's sequence survives the copy).
	terms := map[string]int{}
	if err := db.View(func(tx *Tx) error {
		return tx.ForEachTerm(func(term string, df int) { terms[term] = df })
	}); err != nil || !maps.Equal(terms, map[string]int{"after": 1, "again": 750}) {
		t.Fatalf("terms after compaction and a write: %v, %v; want after: 1, again: 750", terms, err)
	}
	if gone(compactPath(path)) == false {
		t.Fatal("the temporary file is left")
	}
}

// TestCompactSurvivesKill kills a process compacting the store after each
// step, then opens the store: it must hold everything it held, pass the
// consistency check, and leave no temporary file.
func TestCompactSurvivesKill(t *testing.T) {
	for _, step := range []compactStep{stepCopied, stepRenamed} {
		t.Run(string(step), func(t *testing.T) {
			path := churnedStore(t)
			db, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := dump(t, db)
			db.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCompactChild$")
			cmd.Env = append(os.Environ(), "MEMD_COMPACT_DB="+path, "MEMD_COMPACT_KILL="+string(step))
			err = cmd.Run()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Fatalf("the child was not killed at %s: %v", step, err)
			}
			db, err = Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := dump(t, db)
			size := db.Size()
			db.Close()
			if !maps.Equal(got, want) {
				t.Fatalf("killed after %s: the store lost or changed data", step)
			}
			if v := Check(path); !v.OK {
				t.Fatalf("killed after %s: %s", step, v.Problem)
			}
			if !gone(compactPath(path)) {
				t.Fatal("the temporary file was not removed at open")
			}
			t.Logf("killed after %s: %d bytes, whole", step, size)
		})
	}
}

// TestCompactChild compacts and is killed at the step it is told.
func TestCompactChild(t *testing.T) {
	path := os.Getenv("MEMD_COMPACT_DB")
	if path == "" {
		t.Skip("run by TestCompactSurvivesKill")
	}
	kill := compactStep(os.Getenv("MEMD_COMPACT_KILL"))
	afterCompactStep = func(s compactStep) {
		if s == kill {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	db, err := Open(filepath.Clean(path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Compact()
	os.Exit(0)
}
