package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
)

const stageCrashNotes = 40

// TestStagesCrashResume indexes with model stages (a slow fake generator)
// in a child process, kills it with SIGKILL midway, and restarts: notes
// enriched before the kill get no model request again, the others (stored
// with the heuristic's chunks, or not yet) are enriched once, and every
// note is stored once.
func TestStagesCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := tempDir(t)
	for i := range stageCrashNotes {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), fmt.Sprintf("# Note %02d\n\nbody of note %d.\n", i, i))
	}
	dbPath := filepath.Join(t.TempDir(), "memd.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestStagesCrashChild$")
	cmd.Env = append(os.Environ(), "MEMD_STAGE_CRASH_DB="+dbPath, "MEMD_STAGE_CRASH_DIR="+dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	db := openStore(t, dbPath)
	defer db.Close()
	done := map[string]bool{}
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachNote("", func(n *store.Note) error {
			done[n.Title] = n.Chunker == ChunkerModel
			return nil
		})
	})
	enriched := 0
	for _, d := range done {
		enriched += boolRank(d)
	}
	t.Logf("killed with %d of %d notes stored, %d of them enriched", len(done), stageCrashNotes, enriched)
	if len(done) == stageCrashNotes && enriched == stageCrashNotes {
		t.Log("the kill came after every note was enriched; nothing was resumed")
	}

	g := newFakeGen("gen-a", headingChunks)
	ti := &testIndexer{Indexer: NewIndexer(db, withGen(g)), db: db}
	ti.start(t)
	ti.waitIdle(t)
	for i := range stageCrashNotes {
		title := fmt.Sprintf("Note %02d", i)
		calls := g.callsFor("memory-chunk", "Note: "+title+"\n")
		switch {
		case done[title] && calls != 0:
			t.Errorf("%s was enriched before the kill but chunked again (%d requests)", title, calls)
		case !done[title] && calls != 1:
			t.Errorf("%s was not enriched before the kill; %d chunk requests after, want 1", title, calls)
		}
	}
	checkExactlyOnce(t, db, stageCrashNotes)
	if m, f, h := ti.ChunkerCounts(); m != stageCrashNotes || f+h != 0 {
		t.Errorf("chunker counts %d %d %d", m, f, h)
	}
	ti.stop()
}

// TestStagesCrashChild is the process TestStagesCrashResume kills.
func TestStagesCrashChild(t *testing.T) {
	dbPath, dir := os.Getenv("MEMD_STAGE_CRASH_DB"), os.Getenv("MEMD_STAGE_CRASH_DIR")
	if dbPath == "" {
		t.Skip("run by TestStagesCrashResume")
	}
	db := openStore(t, dbPath)
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		time.Sleep(60 * time.Millisecond)
		return headingChunks(adapter, user)
	})
	cfg := withGen(g)
	cfg.BatchNotes, cfg.Stages = 4, 4
	ix := NewIndexer(db, cfg)
	ctx := context.Background()
	go func() { _ = ix.Run(ctx) }()
	if _, err := ix.AddFolder(ctx, dir); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}
