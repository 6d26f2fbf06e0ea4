package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// TestMemctlCompact: after reindexing twice, memctl compact gives the
// freed space back, through a real daemon, and the store keeps every
// note.
func TestMemctlCompact(t *testing.T) {
	vault := copyVault(t)
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(t, data, sock)
	ctx := context.Background()
	if _, err := d.client.AddFolder(ctx, vault); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, d.client, 2*time.Minute)
	for range 2 {
		if _, err := d.client.Reindex(ctx, ""); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, d.client, 2*time.Minute)
	}
	before, _ := d.client.Status(ctx)
	out, err := memctl(t, data, sock, "compact", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res memd.CompactResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("compacted %d → %d bytes", res.BeforeBytes, res.AfterBytes)
	if res.AfterBytes >= res.BeforeBytes {
		t.Fatalf("compaction after two reindexes: %d → %d bytes", res.BeforeBytes, res.AfterBytes)
	}
	after, _ := d.client.Status(ctx)
	if after.Notes != before.Notes || after.Chunks != before.Chunks {
		t.Fatalf("compaction changed the store: %d notes %d chunks before, %d %d after", before.Notes, before.Chunks, after.Notes, after.Chunks)
	}
	if _, err := memctl(t, data, sock, "recall", "Vannevar Bush memex"); err != nil {
		t.Fatal(err)
	}
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	if v := store.Check(filepath.Join(data, "memd.db")); !v.OK || v.Notes != before.Notes {
		t.Fatalf("the compacted store: %+v", v)
	}
}
