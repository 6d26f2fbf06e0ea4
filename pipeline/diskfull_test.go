package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// smallDisk mounts a tmpfs of size bytes for the test, or skips the test
// where mounting is not allowed (it needs CAP_SYS_ADMIN).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := tempDir(t)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a small tmpfs for a full disk (%v); run as root to test it", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes a file that leaves about room bytes free on dir's disk.
func fill(t *testing.T, dir string, room int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	path := filepath.Join(dir, "filler")
	if err := os.WriteFile(path, make([]byte, max(0, free-room)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiskFullRecovers indexes a folder into a store on a nearly full disk,
// then frees the space: every note must be indexed and none left skipped
// (issue 14, defect 9).
func TestDiskFullRecovers(t *testing.T) {
	disk := smallDisk(t, 8<<20)
	db, err := store.Open(filepath.Join(disk, "memd.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	filler := fill(t, disk, 256<<10)

	dir := tempDir(t)
	const notes = 300
	for i := range notes {
		body := strings.Repeat(fmt.Sprintf("word%d text%d more%d ", i, i*7, i*13), 60)
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%03d.md", i)), fmt.Sprintf("# Note %d\n\n%s\n", i, body))
	}
	cfg := testConfig()
	cfg.BatchNotes = 64
	ti := &testIndexer{Indexer: NewIndexer(db, cfg), db: db, stop: func() {}}
	events := ti.Subscribe(t.Context())
	ti.start(t)
	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for full := false; !full; {
		select {
		case ev := <-events:
			full = ev.Type == memd.EventError && strings.Contains(ev.Reason, "no space left")
		case <-deadline:
			t.Fatal("the disk never filled")
		}
	}
	time.Sleep(3 * time.Second) // retries meet the full disk
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every note after space came back", func() bool { return ti.counts().Notes == notes })
	ti.waitIdle(t)
	if s := ti.skips(); len(s) > 0 {
		t.Errorf("%d notes left skipped after space came back, e.g. %+v", len(s), anySkip(s))
	}
}

func anySkip(m map[string]store.Skip) store.Skip {
	for _, s := range m {
		return s
	}
	return store.Skip{}
}
