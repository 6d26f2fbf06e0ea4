package pipeline

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd/internal/gencorpus"
)

// TestCrashResume indexes a folder in a child process, kills it with
// SIGKILL at random points, and checks that a restarted indexer finishes
// with every note indexed exactly once.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const notes = 400
	dir := tempDir(t)
	if err := gencorpus.Write(dir, notes, 3); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "memd.db")
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for i := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
		cmd.Env = append(os.Environ(), "MEMD_CRASH_DB="+dbPath, "MEMD_CRASH_DIR="+dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(100+r.IntN(600)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		db := openStore(t, dbPath)
		var c struct{ notes, pending int }
		_ = db.View(func(tx *storeTx) error {
			n := tx.Counts()
			c.notes, c.pending = n.Notes, n.Pending
			return nil
		})
		db.Close()
		t.Logf("kill %d: %d notes indexed, %d queued", i+1, c.notes, c.pending)
		if i == 1 {
			// Change the folder between crashes: the restart must see it.
			writeFile(t, filepath.Join(dir, "f000", "note00000.md"), "# Changed\n\nafter a crash\n")
		}
	}
	db := openStore(t, dbPath)
	defer db.Close()
	ti := &testIndexer{Indexer: NewIndexer(db, testConfig()), db: db}
	ti.start(t)
	ti.waitIdle(t)
	checkExactlyOnce(t, db, notes)
	if got := chunkTexts(t, ti, filepath.Join(dir, "f000", "note00000.md")); got == "" || !strings.Contains(got, "after a crash") {
		t.Errorf("the note changed between crashes holds %q", got)
	}
	ti.stop()
}

// TestCrashChild is the process TestCrashResume kills.
func TestCrashChild(t *testing.T) {
	dbPath, dir := os.Getenv("MEMD_CRASH_DB"), os.Getenv("MEMD_CRASH_DIR")
	if dbPath == "" {
		t.Skip("run by TestCrashResume")
	}
	db := openStore(t, dbPath)
	cfg := testConfig()
	cfg.BatchNotes = 8 // many commits, many points to be killed between
	ix := NewIndexer(db, cfg)
	ctx := context.Background()
	go func() { _ = ix.Run(ctx) }()
	if _, err := ix.AddFolder(ctx, dir); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}
