package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// filledStore writes a store of 16 MB (notes, chunks, postings) with one
// registered folder, closes it and returns its path. The store is filled
// once per test binary and copied after.
func filledStore(t testing.TB) string {
	t.Helper()
	filled.once.Do(func() {
		path := fillStore(t, filepath.Join(t.TempDir(), "memd.db"), 1500)
		filled.db, filled.err = os.ReadFile(path)
		if filled.err == nil {
			filled.folders, filled.err = os.ReadFile(RegistrationsPath(path))
		}
	})
	if filled.err != nil {
		t.Fatal(filled.err)
	}
	path := filepath.Join(t.TempDir(), "memd.db")
	if err := os.WriteFile(path, filled.db, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(RegistrationsPath(path), filled.folders, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var filled struct {
	once        sync.Once
	db, folders []byte
	err         error
}

// fillStore writes notes notes of 4 chunks each (about 11 KB of store a
// note) into a new store at path.
func fillStore(t testing.TB, path string, notes int) string {
	t.Helper()
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		return tx.PutFolder(Folder{Path: "/notes", Added: time.Unix(1700000000, 0).UTC()})
	}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(1000))
	}
	for n := range notes {
		var chunks []NewChunk
		for c := range 4 {
			terms := make([]string, 12)
			for i := range terms {
				terms[i] = words[rng.IntN(len(words))]
			}
			chunks = append(chunks, chunkOf(strings.Repeat(fmt.Sprintf("note %d chunk %d ", n, c), 20), terms...))
		}
		put(t, db, fmt.Sprintf("/notes/n%05d.md", n), fmt.Sprintf("%064x", n), chunks...)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll reads every key and value the store holds, through the store's
// guarded View.
func readAll(db *DB) error {
	var walk func(b *bolt.Bucket) error
	walk = func(b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				return walk(b.Bucket(k))
			}
			return nil
		})
	}
	return db.View(func(tx *Tx) error {
		return tx.tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walk(b) })
	})
}

func TestTruncatedStoreIsDamaged(t *testing.T) {
	path := filledStore(t)
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()/4); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("open a store cut to a quarter: %v, want a damaged store cut short", err)
	}
}

func TestZeroedMetaPagesAreDamaged(t *testing.T) {
	path := filledStore(t)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 2*os.Getpagesize()), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Open(path, Options{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "both meta pages") {
		t.Fatalf("open a store with zeroed meta pages: %v, want a damaged store", err)
	}
}

// usedPages lists the branch and leaf pages of the store at path.
func usedPages(t *testing.T, path string) []int {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var ids []int
	b.View(func(tx *bolt.Tx) error {
		for id := 2; int64(id) < tx.Size()/int64(b.Info().PageSize); id++ {
			p, err := tx.Page(id)
			if err == nil && p != nil && (p.Type == "leaf" || p.Type == "branch") {
				ids = append(ids, id)
			}
		}
		return nil
	})
	return ids
}

// overwritePages puts random bytes over n used pages of the store at path.
func overwritePages(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	ids := usedPages(t, path)
	rng := rand.New(rand.NewPCG(seed, 0))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, os.Getpagesize())
	for range n {
		for i := range page {
			page[i] = byte(rng.Uint32())
		}
		id := ids[rng.IntN(len(ids))]
		if _, err := f.WriteAt(page, int64(id)*int64(len(page))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRandomPagesAreContained overwrites used pages with random bytes, as a
// failing disk would: reading the store must end in a DamageError that
// raises the alarm, never a panic or a fault.
func TestRandomPagesAreContained(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			path := filledStore(t)
			overwritePages(t, path, 4, seed)
			db, err := Open(path, Options{})
			if err != nil {
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("open: %v, want a damaged store or none", err)
				}
				return
			}
			defer db.Close()
			err = readAll(db)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("reading a store with 4 random pages: %v, want ErrDamaged", err)
			}
			select {
			case <-db.Damaged():
			default:
				t.Fatal("the damage alarm was not raised")
			}
			if !errors.Is(db.DamageErr(), ErrDamaged) {
				t.Fatalf("DamageErr: %v", db.DamageErr())
			}
		})
	}
}

// TestPanicInCallerIsNotDamage: a bug in the function given to View is
// not taken for a damaged file.
func TestPanicInCallerIsNotDamage(t *testing.T) {
	db := openTest(t)
	defer func() {
		if recover() == nil {
			t.Fatal("a panic in the caller's function was swallowed")
		}
		if db.DamageErr() != nil {
			t.Fatalf("a caller's panic raised the damage alarm: %v", db.DamageErr())
		}
	}()
	db.View(func(tx *Tx) error {
		var m map[string]int
		m["x"]++
		return nil
	})
}

// checkInChild runs Check on path in a child process (the test binary
// again), as memd does, and returns its verdict; a crash is reported.
func checkInChild(t *testing.T, path string) (Verdict, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckChild$")
	cmd.Env = append(os.Environ(), "MEMD_STORE_CHECK="+path)
	out, err := cmd.Output()
	var v Verdict
	if jerr := json.Unmarshal(out, &v); jerr != nil {
		return v, fmt.Errorf("check crashed (%v): %s", err, out)
	}
	return v, nil
}

// TestCheckChild is the child process of checkInChild.
func TestCheckChild(t *testing.T) {
	path := os.Getenv("MEMD_STORE_CHECK")
	if path == "" {
		t.Skip("run by checkInChild")
	}
	json.NewEncoder(os.Stdout).Encode(Check(path))
	os.Exit(0)
}

func TestCheckVerdicts(t *testing.T) {
	good := filledStore(t)
	v, err := checkInChild(t, good)
	if err != nil || !v.OK || v.Notes != 1500 || len(v.Folders) != 1 {
		t.Fatalf("a good store: %+v, %v", v, err)
	}
	t.Logf("check of a %d-byte store took %v", v.Bytes, v.Took)

	// Cut below the pages in use: the file may run past them (bbolt
	// grows it ahead of its writes).
	cut := filledStore(t)
	f, err := os.Open(cut)
	if err != nil {
		t.Fatal(err)
	}
	m, err := currentMeta(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	os.Truncate(cut, int64(m.pgid)*int64(m.pageSize)/2)
	if v, err := checkInChild(t, cut); err != nil || v.OK || !strings.Contains(v.Problem, "cut short") ||
		len(v.Folders) != 1 {
		t.Fatalf("a store cut short: %+v, %v; want a damaged verdict naming the kept folder", v, err)
	}
	if v, _ := checkInChild(t, cut); !strings.Contains(v.Reason, "cut short") || v.Problem != "store "+cut+" is damaged: "+v.Reason {
		t.Fatalf("a store cut short: reason %q, problem %q; want the reason alone and the problem that says it", v.Reason, v.Problem)
	} else if d, ok := errors.AsType[*DamageError](v.Damage()); !ok || d.Path != cut || d.Reason != v.Reason {
		t.Fatalf("the verdict's damage %v; want a DamageError of %s with its reason", v.Damage(), cut)
	}

	found := 0
	for seed := range uint64(4) {
		bad := filledStore(t)
		overwritePages(t, bad, 4, seed)
		v, err := checkInChild(t, bad)
		if err != nil || !v.OK {
			found++
		}
		if err == nil && !v.OK && v.Damage() == nil {
			t.Errorf("seed %d: a damaged verdict (%s) without its damage", seed, v.Problem)
		}
		t.Logf("seed %d: %v %s", seed, err, v.Problem)
	}
	if found < 4 {
		t.Fatalf("only %d of 4 stores with 4 random pages failed the check", found)
	}
}

// A store that could not be looked at is not damaged: memd must not move
// it aside.
func TestVerdictWithoutDamage(t *testing.T) {
	for _, v := range []Verdict{
		{Path: "/d/memd.db", OK: true},
		{Path: "/d/memd.db", Problem: "open store /d/memd.db: permission denied"},
		{Path: "/d/memd.db", Problem: ErrLocked.Error(), Locked: true},
	} {
		if err := v.Damage(); err != nil {
			t.Errorf("verdict %+v stands for damage %v", v, err)
		}
	}
	v := Damaged("/d/memd.db", "bbolt's consistency check crashed on it: fault")
	if d, ok := errors.AsType[*DamageError](v.Damage()); !ok || d.Reason != "bbolt's consistency check crashed on it: fault" ||
		v.Problem != "store /d/memd.db is damaged: bbolt's consistency check crashed on it: fault" {
		t.Errorf("a crashed check's verdict %+v, damage %v", v, v.Damage())
	}
}

func TestRegistrationsSurviveMoveAside(t *testing.T) {
	path := filledStore(t)
	kept, err := ReadRegistrations(path)
	if err != nil || len(kept) != 1 || kept[0].Path != "/notes" {
		t.Fatalf("registrations file: %v, %v", kept, err)
	}
	aside, err := MoveAside(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(aside, ".damaged-") || gone(aside) || !gone(path) {
		t.Fatalf("moved aside to %s", aside)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	restored, err := db.Restored()
	if err != nil || len(restored) != 1 {
		t.Fatalf("restored %v, %v", restored, err)
	}
	db.View(func(tx *Tx) error {
		fs, _ := tx.Folders()
		if len(fs) != 1 || fs[0].Path != "/notes" || !fs[0].Added.Equal(kept[0].Added) {
			t.Errorf("folders in the new store: %v", fs)
		}
		return nil
	})
}

func TestRegistrationsFollowTheStore(t *testing.T) {
	db := openTest(t)
	for _, p := range []string{"/a", "/b"} {
		if err := db.Update(func(tx *Tx) error { return tx.PutFolder(Folder{Path: p}) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Update(func(tx *Tx) error { return tx.DeleteFolder("/a") }); err != nil {
		t.Fatal(err)
	}
	kept, err := ReadRegistrations(db.Path())
	if err != nil || len(kept) != 1 || kept[0].Path != "/b" {
		t.Fatalf("after adding /a and /b and removing /a the file keeps %v (%v)", kept, err)
	}
	// A stale file (a crash between commit and rewrite) is corrected at open.
	writeRegistrations(db.Path(), nil)
	db.Close()
	db2, err := Open(db.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if kept, _ := ReadRegistrations(db.Path()); len(kept) != 1 {
		t.Fatalf("a stale file was not rewritten at open: %v", kept)
	}
}

func gone(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// BenchmarkOpenAndCheck measures what a damaged-store check costs at
// start: Open (the meta pages against the file size, bbolt's open and the
// freelist) and Check (bbolt's consistency check over every page), on a
// store of MEMD_BENCH_STORE_MB megabytes (default 64) read warm from the
// page cache. Run: MEMD_BENCH_STORE_MB=1024 go test ./store -run '^$'
// -bench OpenAndCheck -benchtime 3x
func BenchmarkOpenAndCheck(b *testing.B) {
	mb := 64
	if v := os.Getenv("MEMD_BENCH_STORE_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	path := fillStore(b, filepath.Join(b.TempDir(), "memd.db"), mb<<20/11000)
	fi, _ := os.Stat(path)
	b.Logf("store: %d MB", fi.Size()>>20)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			db, err := Open(path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if v := Check(path); !v.OK {
				b.Fatal(v.Problem)
			}
		}
	})
}

// TestCheckDecodesLexicon: a posting block, a span's lengths or a chunk
// term record with bytes that do not decode, in pages bbolt finds sound,
// fail the check.
func TestCheckDecodesLexicon(t *testing.T) {
	for _, bad := range []struct {
		name   string
		bucket bucketID
		value  []byte
	}{
		{"posting block", bucketPostings, []byte{0xff, 0xff, 0x00, 0x01}},
		{"lengths", bucketLengths, []byte{3, 1, 2}},
		{"chunk terms", bucketChunkTerms, []byte{0x80}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			path := filledStore(t)
			db, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.current.Load().Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketNames[bad.bucket])
				k, _ := b.Cursor().First()
				return b.Put(k, bad.value)
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if v, err := checkInChild(t, path); err != nil || v.OK || !strings.Contains(v.Problem, "decode") {
				t.Fatalf("check of a store with a damaged %s: %+v, %v", bad.name, v, err)
			}
		})
	}
}
