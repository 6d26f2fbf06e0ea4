package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
)

func TestBatchBudgetStopsAtBytes(t *testing.T) {
	cases := []struct {
		limit int64
		want  int
	}{{0, 1}, {100, 2}, {250, 3}, {1 << 20, 5}}
	for _, c := range cases {
		b := batchBudget{n: 5, limit: c.limit}
		for {
			if _, ok := b.take(); !ok {
				break
			}
			b.spend(100)
		}
		if got := b.taken(); got != c.want {
			t.Errorf("limit %d: took %d jobs of 100 bytes, want %d", c.limit, got, c.want)
		}
	}
}

func TestPrefixUTF8NeverCutsACharacter(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"日本", 4, "日"}, {"日本", 0, ""}}
	for _, c := range cases {
		if got := prefixUTF8(c.s, c.n); got != c.want {
			t.Errorf("prefixUTF8(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// aheadFolder queues four notes, a to d, in batches of two, and commits
// the first batch by hand: a and b are stored, c and d prepared ahead.
func aheadFolder(t *testing.T) (*testIndexer, func(string) string) {
	t.Helper()
	dir := tempDir(t)
	path := func(name string) string { return filepath.Join(dir, name+".md") }
	for _, n := range []string{"a", "b", "c", "d"} {
		writeFile(t, path(n), "# "+n+"\n\nthe first words of "+n+".\n")
	}
	cfg := testConfig()
	cfg.BatchNotes = 2
	ti := newIndexer(t, cfg)
	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	if n, _, err := ti.worker.runBatch(bg); n != 2 || err != nil {
		t.Fatalf("first batch: %d jobs, %v", n, err)
	}
	if len(ti.worker.ahead.outs) != 2 {
		t.Fatalf("%d notes prepared ahead, want 2 (c, d)", len(ti.worker.ahead.outs))
	}
	return ti, path
}

// TestBatchAheadDroppedAfterForget: a note forgotten after the next batch
// was prepared must not come back with that batch.
func TestBatchAheadDroppedAfterForget(t *testing.T) {
	ti, path := aheadFolder(t)
	if err := ti.Forget(bg, path("c")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ti.worker.runBatch(bg); err != nil {
		t.Fatal(err)
	}
	if ti.note(path("c")) != nil {
		t.Error("the forgotten note was indexed by the batch prepared before it was forgotten")
	}
	if ti.note(path("d")) == nil {
		t.Error("the other note of the batch was not indexed")
	}
}

// TestBatchAheadRedoesChanges: a file that changes after the batch
// prepared ahead read it is indexed again after that batch commits.
func TestBatchAheadRedoesChanges(t *testing.T) {
	ti, path := aheadFolder(t)
	const changed = "# c\n\nzebras came later.\n"
	writeFile(t, path("c"), changed)
	ti.changed(filepath.Dir(path("c")), []string{path("c")}) // as the watcher reports it
	for range 3 {
		if _, _, err := ti.worker.runBatch(bg); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256([]byte(changed))
	if n := ti.note(path("c")); n == nil || n.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("c is stored as %+v: the change made while its batch was prepared ahead was lost", n)
	}
}

// TestQueueWindowsOverlap: with a batch committing and the next one read
// ahead, a change is recorded for both, and closing one leaves the other.
func TestQueueWindowsOverlap(t *testing.T) {
	q := newJobQueue(nil)
	committing := q.openBatch()
	q.changed([]string{"/f/a.md"})
	ahead := q.openBatch()
	q.changed([]string{"/f/b.md"})
	if got := q.closeBatch(committing); !got["/f/a.md"] || !got["/f/b.md"] {
		t.Errorf("the committing batch recorded %v, want a and b", got)
	}
	q.changed([]string{"/f/c.md"})
	if got := q.closeBatch(ahead); got["/f/a.md"] || !got["/f/b.md"] || !got["/f/c.md"] {
		t.Errorf("the batch read ahead recorded %v, want b and c", got)
	}
	q.changed([]string{"/f/d.md"})
	if got := q.closeBatch(ahead); got["/f/d.md"] {
		t.Error("a closed window still records changes")
	}
}

// An idle worker gives its memory back once per burst of work, and indexes
// the next burst as well as the first (its preparers are built again).
func TestIdleWorkerReleasesMemoryAndIndexesAgain(t *testing.T) {
	ti, dir := indexAlphaUntilReleased(t)

	beta := filepath.Join(dir, "beta.md")
	writeFile(t, beta, "# Beta\n\nBeta notes about bananas.\n")
	waitFor(t, "the note written after the release", func() bool { return ti.note(beta) != nil })
	if !hasTerm(t, ti, "banana") {
		t.Errorf("the note indexed after the release has no postings")
	}
	waitFor(t, "the second release", func() bool { return ti.worker.released.Load() == 2 })
}

// indexAlphaUntilReleased indexes a folder of one note and waits for the
// idle worker's first release of its memory.
func indexAlphaUntilReleased(t *testing.T) (*testIndexer, string) {
	t.Helper()
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "alpha.md"), "# Alpha\n\nAlpha notes about apricots.\n")
	ti := startIndexer(t, testConfig())
	if _, err := ti.AddFolder(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ti.waitIdle(t)
	waitFor(t, "the first release", func() bool { return ti.worker.released.Load() == 1 })
	return ti, dir
}

// gcPercent is the collector's percent (GOGC) now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The raised percent keeps a large live heap's growth to bulkHeapGrowth,
// lets a small one grow bulkHeapFloor up to bulkGCSmallHeap, and never
// goes below the percent found nor, past a small heap, above bulkGC.
func TestBulkGCPercent(t *testing.T) {
	for _, c := range []struct {
		live         uint64
		before, want int
	}{
		{40 << 20, 100, bulkGC},
		{20 << 20, 100, 640},
		{8 << 20, 100, 1600},
		{1 << 20, 100, bulkGCSmallHeap},
		{128 << 20, 100, 200},
		{1 << 30, 100, 100},
		{1 << 30, 150, 150},
		{0, 100, bulkGCSmallHeap},
	} {
		if got := bulkGCPercent(c.live, c.before); got != c.want {
			t.Errorf("live %d MiB, GOGC %d: %d, want %d", c.live>>20, c.before, got, c.want)
		}
	}
}

// A burst of work raises the collector's percent (the test's heap is
// small: to bulkGC or more), and the idle release puts back what the worker found;
// GOGC=off stays off.
func TestBulkMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		live   uint64
		before int
		want   uint64
	}{
		{4 << 20, 100, 4<<20 + bulkLimitFloor},     // a small heap grows by the floor
		{50 << 20, 100, 50<<20 + 100<<20},          // a mid-sized one by twice itself, not by 400%
		{200 << 20, 100, 200<<20 + bulkHeapGrowth}, // a large one by at most the growth
		{600 << 20, 100, 1200 << 20},               // or as the percent found lets it
		{50 << 20, 300, 200 << 20},                 // never below what the percent found lets it
	} {
		if got, want := bulkMemoryLimit(c.live, c.before), int64(c.want+max(bulkLimitSlack, c.want/4)); got != want {
			t.Errorf("bulkMemoryLimit(%d MiB, %d) = %d MiB, want %d", c.live>>20, c.before, got>>20, want>>20)
		}
	}
}

func TestBulkGCRaisedForWorkAndRestoredWhenIdle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var bw batchWorker
	bw.raiseGC()
	if got := gcPercent(); got < bulkGC || got > bulkGCSmallHeap {
		t.Errorf("GOGC %d during a burst, want %d to %d", got, bulkGC, bulkGCSmallHeap)
	}
	// The limit holds the heap near what the percent meant over the live
	// heap of now, however the live heap grows later.
	if got := debug.SetMemoryLimit(-1); got > bulkMemoryLimit(bulkHeapGrowth, 150) {
		t.Errorf("memory limit %d MB during a burst, want one past the live heap", got>>20)
	}
	bw.raiseGC()
	bw.restoreGC()
	if got := gcPercent(); got != 150 {
		t.Errorf("GOGC %d after the burst, want the 150 it found", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d after the burst, want none, as found", got)
	}
	// A lower limit of the user's (GOMEMLIMIT) is kept.
	debug.SetMemoryLimit(32 << 20)
	bw.raiseGC()
	if got := debug.SetMemoryLimit(-1); got != 32<<20 {
		t.Errorf("memory limit %d MB during a burst under GOMEMLIMIT=32MiB, want 32", got>>20)
	}
	bw.restoreGC()
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(-1)
	bw.raiseGC()
	if got := gcPercent(); got != -1 {
		t.Errorf("GOGC %d during a burst with the collector off, want it off", got)
	}
	bw.restoreGC()
	debug.SetGCPercent(800)
	bw.raiseGC()
	if got := gcPercent(); got != 800 {
		t.Errorf("GOGC %d during a burst, want the 800 it found", got)
	}
	bw.restoreGC()

	debug.SetGCPercent(150)
	indexAlphaUntilReleased(t)
	if got := gcPercent(); got != 150 {
		t.Errorf("GOGC %d after the idle release, want 150", got)
	}
}

// A burst's batches grow from BatchNotes, doubling, to BurstBatchNotes,
// and the next burst, after the idle release, starts small again.
func TestBatchesGrowWithTheBurst(t *testing.T) {
	dir := tempDir(t)
	for i := range 30 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), fmt.Sprintf("# Note %d\n\nwords of note %d.\n", i, i))
	}
	cfg := testConfig()
	cfg.BatchNotes, cfg.BurstBatchNotes = 2, 8
	ti := newIndexer(t, cfg)
	if _, err := ti.AddFolder(bg, dir); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for {
		n, _, err := ti.worker.runBatch(bg)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		sizes = append(sizes, n)
	}
	if want := []int{2, 4, 8, 8, 8}; !slices.Equal(sizes, want) {
		t.Errorf("batches of %v, want %v", sizes, want)
	}
	ti.worker.release()
	later := tempDir(t)
	for i := range 5 {
		writeFile(t, filepath.Join(later, fmt.Sprintf("m%02d.md", i)), "# Later\n\nwritten after the release.\n")
	}
	if _, err := ti.AddFolder(bg, later); err != nil {
		t.Fatal(err)
	}
	if n, _, err := ti.worker.runBatch(bg); n != 2 || err != nil {
		t.Errorf("the first batch after the idle release read %d jobs (%v), want 2", n, err)
	}
}

func TestBurstBatchNotesDefaults(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		first int
		burst int
	}{
		{"defaults", Config{}, defaultBatchNotes, burstBatchGrowth * defaultBatchNotes},
		{"models", Config{Generator: &fakeGen{}}, 2 * defaultStages, 2 * defaultStages},
		{"BatchNotes set", Config{BatchNotes: 64}, 64, 64},
		{"both set", Config{BatchNotes: 64, BurstBatchNotes: 256}, 64, 256},
		{"burst below first", Config{BatchNotes: 64, BurstBatchNotes: 8}, 64, 64},
	}
	for _, c := range cases {
		got := c.cfg.withDefaults()
		if got.BatchNotes != c.first || got.BurstBatchNotes != c.burst {
			t.Errorf("%s: BatchNotes %d, BurstBatchNotes %d; want %d and %d", c.name, got.BatchNotes, got.BurstBatchNotes, c.first, c.burst)
		}
	}
}
