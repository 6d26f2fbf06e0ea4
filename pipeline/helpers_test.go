package pipeline

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// dendronVault is the shared test corpus beside the repository; the tests
// that need it skip when it is missing.
func dendronVault(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MEMD_DENDRON")
	if dir == "" {
		dir = "../../shared/corpora/dendron/vault"
	}
	if !dirExists(dir) {
		t.Skipf("corpus %s not found (set MEMD_DENDRON)", dir)
	}
	return dir
}

// testIndexer is an Indexer running over a fresh store in t.TempDir.
type testIndexer struct {
	*Indexer
	db      *store.DB
	vectors *vector.Serving // the in-memory index the indexer keeps, with an embedder
	stop    func()
}

func testConfig() Config {
	return Config{
		Debounce:  40 * time.Millisecond,
		Reconcile: time.Hour,
		Logger:    testLogger(),
	}
}

func openStore(t testing.TB, path string) *store.DB {
	t.Helper()
	db, err := store.Open(path, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// newIndexer returns an indexer that is not running yet.
func newIndexer(t testing.TB, cfg Config) *testIndexer {
	t.Helper()
	db := openStore(t, filepath.Join(t.TempDir(), "memd.db"))
	t.Cleanup(func() { db.Close() })
	return wire(t, db, cfg)
}

// wire makes the indexer over db that memd's serve makes: with an
// embedder, a vector.Serving of it hears of every commit.
func wire(t testing.TB, db *store.DB, cfg Config) *testIndexer {
	if cfg.Embedder != nil && cfg.Vectors == nil {
		cfg.Vectors = vector.NewServing(db, vector.ServingConfig{Embedder: cfg.Embedder})
		t.Cleanup(func() { cfg.Vectors.Close() })
	}
	return &testIndexer{Indexer: NewIndexer(db, cfg), db: db, vectors: cfg.Vectors, stop: func() {}}
}

// served is how many vectors of fingerprint fp the in-memory index holds.
func (ti *testIndexer) served(fp string) int {
	st := ti.vectors.Stats()
	if st.Fingerprint != fp {
		return 0
	}
	return st.Len
}

// start runs the indexer until the test ends or stop is called.
func (ti *testIndexer) start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ti.Run(ctx) }()
	<-ti.started
	stopped := false
	ti.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return 10s after its context ended")
		}
	}
	t.Cleanup(ti.stop)
}

func startIndexer(t testing.TB, cfg Config) *testIndexer {
	ti := newIndexer(t, cfg)
	ti.start(t)
	return ti
}

func (ti *testIndexer) waitIdle(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ti.WaitIdle(ctx); err != nil {
		t.Fatalf("indexer not idle: %v", err)
	}
}

func (ti *testIndexer) note(path string) *store.Note {
	var n *store.Note
	_ = ti.db.View(func(tx *store.Tx) error {
		n, _ = tx.LookupNote(path)
		return nil
	})
	return n
}

func (ti *testIndexer) counts() store.Counts {
	var c store.Counts
	_ = ti.db.View(func(tx *store.Tx) error { c = tx.Counts(); return nil })
	return c
}

func (ti *testIndexer) skips() map[string]store.Skip {
	out := map[string]store.Skip{}
	_ = ti.db.View(func(tx *store.Tx) error {
		skips, err := tx.Skips()
		for _, s := range skips {
			out[s.Path] = s
		}
		return err
	})
	return out
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// copyTree copies the regular files of src into a new temp dir (resolved,
// so paths compare equal to the indexer's) and returns it.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := tempDir(t)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

type storeTx = store.Tx

// openSynced opens a store that fsyncs its commits, as the daemon's does.
func openSynced(path string) (*store.DB, error) { return store.Open(path, store.Options{}) }

// testLogger discards, unless MEMD_TEST_DEBUG is set: then it writes
// debug logs to stderr.
func testLogger() *slog.Logger {
	if os.Getenv("MEMD_TEST_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
