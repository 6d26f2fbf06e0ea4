package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// TestDamagedStoreIsRebuilt damages an indexed store the ways a disk or a
// person can, starts a real memd on it, and expects a clear log line, the
// damaged file moved aside, and the folders indexed anew: never a crash
// loop.
func TestDamagedStoreIsRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the sample vault once per case")
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, db string)
		extra  []string
		reason string
	}{
		{"truncated", func(t *testing.T, db string) {
			fi, _ := os.Stat(db)
			if err := os.Truncate(db, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, nil, "cut short"},
		{"zeroed meta pages", func(t *testing.T, db string) {
			overwrite(t, db, 0, make([]byte, 2*os.Getpagesize()))
		}, nil, "both meta pages"},
		{"random pages, checked at start", randomPages, nil, ""},
		{"random pages, found by a read", randomPages, []string{"--store-check-max-bytes", "0"}, "inside bbolt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vault := copyVault(t)
			dir := tempDir(t)
			data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
			d := startDaemon(t, data, sock)
			if _, err := d.client.AddFolder(context.Background(), vault); err != nil {
				t.Fatal(err)
			}
			waitIdle(t, d.client, 2*time.Minute)
			if err := d.stop(); err != nil {
				t.Fatal(err)
			}
			dbPath := filepath.Join(data, "memd.db")
			c.damage(t, dbPath)

			out, err := memctl(t, data, sock+".none", "doctor", "--json")
			if err == nil || !strings.Contains(out, "damaged") {
				t.Errorf("doctor on the damaged store: %v\n%s", err, out)
			}

			d = startDaemon(t, data, sock, c.extra...)
			eventually(t, time.Minute, "memd moves the damaged store aside", func() (bool, string) {
				log := d.log.String()
				return strings.Contains(log, "the store is damaged: moved it aside") && strings.Contains(log, c.reason), log
			})
			aside, _ := filepath.Glob(dbPath + ".damaged-*")
			if len(aside) != 1 {
				t.Fatalf("damaged store moved to %v", aside)
			}
			waitIdle(t, d.client, 2*time.Minute)
			st, err := d.client.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			files := noteFiles(t, vault)
			if len(st.Folders) != 1 || st.Folders[0].Path != vault || st.Notes+st.Skipped != len(files) || st.Notes == 0 {
				t.Fatalf("after the rebuild: folders %+v, %d notes + %d skipped of %d files", st.Folders, st.Notes, st.Skipped, len(files))
			}
			if err := d.stop(); err != nil {
				t.Fatalf("exit after the rebuild: %v", err)
			}
		})
	}
}

func overwrite(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

// randomPages overwrites the root page of the notes bucket, which the
// start-up reconcile reads, and three other used pages with random bytes.
func randomPages(t *testing.T, path string) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	b.View(func(tx *bolt.Tx) error {
		ids = append(ids, int(tx.Bucket([]byte("notes")).Root()))
		for id := 2; int64(id) < tx.Size()/int64(b.Info().PageSize); id++ {
			if p, err := tx.Page(id); err == nil && p != nil && (p.Type == "leaf" || p.Type == "branch") {
				ids = append(ids, id)
			}
		}
		return nil
	})
	b.Close()
	if ids[0] == 0 {
		t.Fatal("the notes bucket is inline: too few notes")
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	page := make([]byte, os.Getpagesize())
	for i := range 4 {
		id := ids[0]
		if i > 0 {
			id = ids[1+rng.IntN(len(ids)-1)]
		}
		for j := range page {
			page[j] = byte(rng.Uint32())
		}
		overwrite(t, path, int64(id)*int64(len(page)), page)
	}
}
