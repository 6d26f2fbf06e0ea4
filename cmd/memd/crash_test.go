package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
)

// TestCrashRecovery is the crash soak: it kills memd with SIGKILL at
// random points while it indexes a copy of the sample vault (editing,
// renaming, deleting and creating notes and moving a subfolder between
// rounds), then restarts it, waits until idle and checks the store against
// the folder: every note file indexed exactly once, at its current
// content, with no stray or duplicate chunks, and the store passing
// bbolt's consistency check. MEMD_CRASH_SEED replays a run;
// MEMD_CRASH_ROUNDS (default 6, what CI runs) makes it longer:
//
//	MEMD_CRASH_ROUNDS=100 go test ./cmd/memd -run TestCrashRecovery -timeout 1h
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test is not short")
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("MEMD_CRASH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("MEMD_CRASH_SEED: %v", err)
		}
	}
	t.Logf("MEMD_CRASH_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	vault := copyVault(t)
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	rounds := envInt("MEMD_CRASH_ROUNDS", 6)
	for round := range rounds {
		d := startDaemon(t, data, sock)
		ctx := context.Background()
		if round == 0 {
			if _, err := d.client.AddFolder(ctx, vault); err != nil {
				t.Fatal(err)
			}
		} else {
			mutate(t, rng, vault, round)
			if rng.IntN(2) == 0 {
				if _, err := d.client.Reindex(ctx, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		delay := time.Duration(rng.IntN(600)) * time.Millisecond
		time.Sleep(delay)
		st, _ := d.client.Status(ctx)
		t.Logf("round %d: SIGKILL after %v (%d notes, %d pending)", round, delay, st.Notes, st.Pending)
		d.kill()
	}

	d := startDaemon(t, data, sock)
	waitIdle(t, d.client, 2*time.Minute)
	files := noteFiles(t, vault)
	ctx := context.Background()
	skips, err := d.client.Skips(ctx)
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]bool{}
	for _, s := range skips {
		skipped[s.Path] = true
	}
	// Through the API: each file is one note, with chunks that no other
	// note shares.
	seen := map[uint64]string{}
	for path := range files {
		if skipped[path] {
			continue
		}
		n, err := d.client.Note(ctx, path)
		if err != nil {
			t.Errorf("%s is not indexed: %v", path, err)
			continue
		}
		for _, c := range n.Chunks {
			if other, dup := seen[c.ChunkID]; dup {
				t.Errorf("chunk %d belongs to %s and %s", c.ChunkID, other, path)
			}
			seen[c.ChunkID] = path
		}
	}
	if err := d.stop(); err != nil {
		t.Fatalf("exit after recovery: %v", err)
	}
	checkStore(t, filepath.Join(data, "memd.db"), files, skipped)
	if v := store.Check(filepath.Join(data, "memd.db")); !v.OK {
		t.Fatalf("after %d crashes the store fails bbolt's consistency check: %s", rounds, v.Problem)
	}
}

// mutate edits, renames, creates and deletes a few notes, as a person
// would between two crashes.
func mutate(t *testing.T, rng *rand.Rand, vault string, round int) {
	t.Helper()
	var list []string
	for p := range noteFiles(t, vault) {
		list = append(list, p)
	}
	slices.Sort(list)
	pick := func() string {
		i := rng.IntN(len(list))
		p := list[i]
		list = slices.Delete(list, i, i+1)
		return p
	}
	edit := pick()
	f, err := os.OpenFile(edit, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n## Crash round %d\n\nEdited between crashes, round %d.\n", round, round)
	f.Close()
	if err := os.Remove(pick()); err != nil {
		t.Fatal(err)
	}
	from := pick()
	if err := os.Rename(from, filepath.Join(vault, fmt.Sprintf("renamed.round%d.%s", round, filepath.Base(from)))); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("# New in round %d\n\nA note written between crashes.\n", round)
	if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("new.round%d.md", round)), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	moveSubfolder(t, vault, round)
}

// moveSubfolder moves the round's subfolder (made in round 1) to a new
// name, as a person reorganising notes would: its notes must be found at
// their new paths and gone from the old.
func moveSubfolder(t *testing.T, vault string, round int) {
	t.Helper()
	old := filepath.Join(vault, fmt.Sprintf("folder.round%d", round-1))
	next := filepath.Join(vault, fmt.Sprintf("folder.round%d", round))
	if _, err := os.Stat(old); err != nil {
		if err := os.MkdirAll(next, 0o700); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			body := fmt.Sprintf("# Moving note %d\n\nThis note lives in a folder that moves between crashes.\n", i)
			if err := os.WriteFile(filepath.Join(next, fmt.Sprintf("moving%d.md", i)), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if err := os.Rename(old, next); err != nil {
		t.Fatal(err)
	}
}

// checkStore opens the stopped daemon's store and compares it with the
// folder: the notes are exactly the files not skipped, each at its file's
// content hash; every chunk belongs to the note that lists it; the
// counters agree with what is stored; no job is left.
func checkStore(t *testing.T, path string, files, skipped map[string]bool) {
	t.Helper()
	db, err := store.Open(path, store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *store.Tx) error {
		notes := map[string][]uint64{}
		if err := tx.ForEachNote("", func(n *store.Note) error {
			if _, dup := notes[n.Path]; dup {
				t.Errorf("note %s stored twice", n.Path)
			}
			notes[n.Path] = slices.Clone(n.Chunks)
			switch {
			case !files[n.Path]:
				t.Errorf("note %s is stored but no such file exists", n.Path)
			case skipped[n.Path]:
				t.Errorf("note %s is both stored and skipped", n.Path)
			default:
				b, err := os.ReadFile(n.Path)
				if err != nil {
					return err
				}
				if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != n.Hash {
					t.Errorf("note %s is stored at an old version", n.Path)
				}
			}
			return nil
		}); err != nil {
			return err
		}
		for f := range files {
			if _, ok := notes[f]; !ok && !skipped[f] {
				t.Errorf("file %s is neither indexed nor skipped", f)
			}
		}
		owner := map[uint64]string{}
		listed := 0
		for p, ids := range notes {
			for _, id := range ids {
				if other, dup := owner[id]; dup {
					t.Errorf("chunk %d is listed by %s and %s", id, other, p)
				}
				owner[id] = p
				listed++
			}
		}
		stored := 0
		if err := tx.ForEachChunk(func(c *store.Chunk) error {
			stored++
			if owner[c.ID] != c.Path {
				t.Errorf("chunk %d of %s is listed by note %q", c.ID, c.Path, owner[c.ID])
			}
			return nil
		}); err != nil {
			return err
		}
		c := tx.Counts()
		if c.Notes != len(notes) || c.Chunks != stored || stored != listed || c.Pending != 0 {
			t.Errorf("counters: %d notes, %d chunks, %d pending; stored: %d notes, %d chunks (%d listed by notes)",
				c.Notes, c.Chunks, c.Pending, len(notes), stored, listed)
		}
		t.Logf("store: %d notes, %d chunks, %d skipped, %d files", len(notes), stored, len(skipped), len(files))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
