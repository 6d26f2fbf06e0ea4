package store

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var errRolledBack = errors.New("rolled back")

func blockID(k uint64) string { return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, k)) }

// randomBlockIDs is n block ids, spread over the shards as parse's are.
func randomBlockIDs(rng *rand.Rand, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = blockID(rng.Uint64())
	}
	return ids
}

// countModel is what the block counts must be: per folder, block → count,
// with a transaction's changes clamped at 0 each time they are read, as
// flushBlocks writes them.
type countModel struct {
	counts  map[string]map[uint64]int
	pending map[string]map[uint64]int
}

func (m *countModel) flush() {
	for folder, deltas := range m.pending {
		if m.counts[folder] == nil {
			m.counts[folder] = map[uint64]int{}
		}
		for id, d := range deltas {
			if n := max(0, m.counts[folder][id]+d); n > 0 {
				m.counts[folder][id] = n
			} else {
				delete(m.counts[folder], id)
			}
		}
	}
	clear(m.pending)
}

func (m *countModel) clone() *countModel {
	c := &countModel{counts: map[string]map[uint64]int{}, pending: map[string]map[uint64]int{}}
	for f, counts := range m.counts {
		c.counts[f] = maps.Clone(counts)
	}
	return c
}

// tierStats counts what a folder's tiers went through, for a test to say
// that it crossed merges.
type tierStats struct{ baseMerges, classMerges, maxRuns, maxClass int }

func (s *tierStats) see(t *testing.T, db *DB, folder string, runsBefore int) int {
	t.Helper()
	runs := 0
	db.View(func(tx *Tx) error {
		b := tx.bucket(bucketBlocks).Bucket([]byte(folder))
		if b == nil {
			return nil
		}
		for _, r := range readTiers(b).runs {
			runs++
			s.maxClass = max(s.maxClass, sizeClass(len(r.entries)))
		}
		return nil
	})
	s.maxRuns = max(s.maxRuns, runs)
	if runs == 0 && runsBefore > 0 {
		s.baseMerges++
	}
	if runs > 0 && runs <= runsBefore {
		s.classMerges++
	}
	return runs
}

// checkCounts compares the store's counts of ids in every folder of m, read
// in tx, with m's.
func checkCounts(tx *Tx, m *countModel, folders []string, ids []uint64) error {
	strs := make([]string, len(ids))
	for i, k := range ids {
		strs[i] = blockID(k)
	}
	for _, f := range folders {
		got, err := tx.BlockHoldersOf(f, strs)
		if err != nil {
			return err
		}
		for i, k := range ids {
			if got[i] != m.counts[f][k] {
				return fmt.Errorf("folder %s block %s: %d holders, want %d", f, strs[i], got[i], m.counts[f][k])
			}
		}
	}
	return nil
}

// Thousands of random count changes, up and down (past 0, which the counts
// clamp at), over transactions small and large, some rolled back, read in
// and after each: the tiers answer as one table of counts would, across
// merges of runs and into the base.
func TestBlockTiersMatchModel(t *testing.T) {
	db := openTest(t)
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]uint64, 4000)
	for i := range pool {
		pool[i] = rng.Uint64()
	}
	folders := []string{"/v", "/w"}
	m := &countModel{counts: map[string]map[uint64]int{}, pending: map[string]map[uint64]int{}}
	var stats tierStats
	runs := 0
	for n := range 400 {
		next := m.clone()
		touched := map[uint64]bool{}
		ops := 1 + rng.IntN(20)
		if rng.IntN(10) == 0 {
			ops = 1000 + rng.IntN(3000)
		}
		rollBack := rng.IntN(8) == 0
		var crossings []BlockChange
		err := db.Update(func(tx *Tx) error {
			for range ops {
				f := folders[rng.IntN(len(folders))]
				if rng.IntN(4) == 0 {
					f = folders[0]
				}
				id := pool[rng.IntN(len(pool))]
				d := 1
				if rng.IntN(5) < 2 {
					d = -1
				}
				tx.countBlocks(f, []string{blockID(id)}, d)
				if next.pending[f] == nil {
					next.pending[f] = map[uint64]int{}
				}
				next.pending[f][id] += d
				touched[id] = true
				if rng.IntN(200) == 0 {
					next.flush()
					if err := checkCounts(tx, next, folders, []uint64{id, pool[rng.IntN(len(pool))]}); err != nil {
						return fmt.Errorf("within transaction %d: %w", n, err)
					}
				}
			}
			var err error
			if crossings, err = tx.BlockCrossings(2); err != nil {
				return err
			}
			if rollBack {
				return errRolledBack
			}
			return nil
		})
		if rollBack {
			if !errors.Is(err, errRolledBack) {
				t.Fatalf("transaction %d: %v", n, err)
			}
		} else {
			if err != nil {
				t.Fatalf("transaction %d: %v", n, err)
			}
			next.flush()
			checkCrossings(t, n, m, next, crossings, 2)
			m = next
			runs = stats.see(t, db, folders[0], runs)
		}
		ids := slices.Collect(maps.Keys(touched))
		if n%50 == 0 {
			ids = pool
		}
		if err := db.View(func(tx *Tx) error { return checkCounts(tx, m, folders, ids) }); err != nil {
			t.Fatalf("after transaction %d: %v", n, err)
		}
	}
	if stats.baseMerges < 3 || stats.classMerges < 3 || stats.maxClass < 1 {
		t.Errorf("the test crossed too few merges: %+v", stats)
	}
	if err := db.checkBlocks(); err != nil {
		t.Error(err)
	}
}

// checkCrossings compares what BlockCrossings said with the counts before
// and after the transaction.
func checkCrossings(t *testing.T, n int, before, after *countModel, got []BlockChange, threshold int) {
	t.Helper()
	var want []BlockChange
	for _, f := range []string{"/v", "/w"} {
		ids := map[uint64]bool{}
		for id := range before.counts[f] {
			ids[id] = true
		}
		for id := range after.counts[f] {
			ids[id] = true
		}
		for id := range ids {
			b, a := before.counts[f][id], after.counts[f][id]
			if (b >= threshold) != (a >= threshold) {
				want = append(want, BlockChange{f, blockID(id), b, a})
			}
		}
	}
	order := func(a, b BlockChange) int {
		return cmp.Or(strings.Compare(a.Folder, b.Folder), strings.Compare(a.ID, b.ID))
	}
	slices.SortFunc(want, order)
	slices.SortFunc(got, order)
	if !slices.Equal(got, want) {
		t.Fatalf("transaction %d crossings:\n got %v\nwant %v", n, got, want)
	}
}

// Notes written, replaced, moved between folders and deleted, the counts
// following the note records; removing a folder's notes leaves its counts
// bucket empty once the removal's run is merged into the base.
func TestBlockTiersFollowNotes(t *testing.T) {
	db := openTest(t)
	rng := rand.New(rand.NewPCG(3, 4))
	pool := randomBlockIDs(rng, 800)
	notes := map[string]*Note{}
	randomNote := func(path string) *Note {
		n := blockNote(path)
		n.Folder = path[:2]
		for range 1 + rng.IntN(12) {
			n.Blocks = append(n.Blocks, pool[rng.IntN(len(pool))])
		}
		return n
	}
	model := func() *countModel {
		m := &countModel{counts: map[string]map[uint64]int{"/v": {}, "/w": {}}}
		for _, n := range notes {
			for _, id := range n.Blocks {
				k, _ := decodeBlockID(id)
				m.counts[n.Folder][k]++
			}
		}
		return m
	}
	var ids []uint64
	for _, id := range pool {
		k, _ := decodeBlockID(id)
		ids = append(ids, k)
	}
	for n := range 150 {
		next := maps.Clone(notes)
		rollBack := rng.IntN(8) == 0
		err := db.Update(func(tx *Tx) error {
			for range 1 + rng.IntN(60) {
				path := fmt.Sprintf("/%c/%d.md", "vw"[rng.IntN(2)], rng.IntN(300))
				switch old := next[path]; {
				case old != nil && rng.IntN(3) == 0:
					if _, err := tx.DeleteNote(path); err != nil {
						return err
					}
					delete(next, path)
				case old != nil && rng.IntN(2) == 0:
					to := *old
					to.Path = fmt.Sprintf("/%c/%d.md", "vw"[rng.IntN(2)], 300+rng.IntN(300))
					to.Folder = to.Path[:2]
					if _, err := tx.MoveNote(old, &to); err != nil {
						return err
					}
					delete(next, path)
					next[to.Path] = &to
				default:
					note := randomNote(path)
					if _, err := tx.PutNote(note, nil); err != nil {
						return err
					}
					next[path] = note
				}
			}
			if rollBack {
				return errRolledBack
			}
			return nil
		})
		if rollBack && !errors.Is(err, errRolledBack) || !rollBack && err != nil {
			t.Fatalf("transaction %d: %v", n, err)
		}
		if !rollBack {
			notes = next
		}
		if err := db.View(func(tx *Tx) error { return checkCounts(tx, model(), []string{"/v", "/w"}, ids) }); err != nil {
			t.Fatalf("after transaction %d: %v", n, err)
		}
	}
	if err := db.Update(func(tx *Tx) error { return tx.DeleteNotesUnder("/w/", func(*Note) {}) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if k, _ := tx.bucket(bucketBlocks).Bucket([]byte("/w")).Cursor().First(); k != nil {
			t.Errorf("a folder without notes keeps counts under %x", k)
		}
		return nil
	})
	if err := db.checkBlocks(); err != nil {
		t.Error(err)
	}
}

// A commit of one note into a folder of many counted blocks adds a run of
// its own changes, leaving the base as it was, and the next commits merge
// the small runs among themselves.
func TestBlockTiersCommitWhatChanged(t *testing.T) {
	db := openTest(t)
	rng := rand.New(rand.NewPCG(5, 6))
	big := randomBlockIDs(rng, 20000)
	if err := db.Update(func(tx *Tx) error { tx.countBlocks("/v", big, +1); return nil }); err != nil {
		t.Fatal(err)
	}
	base := func() (shards map[string]string, runs int) {
		shards = map[string]string{}
		db.View(func(tx *Tx) error {
			b := tx.bucket(bucketBlocks).Bucket([]byte("/v"))
			b.ForEach(func(k, v []byte) error {
				if len(k) == 2 {
					shards[string(k)] = string(v)
				}
				return nil
			})
			runs = len(readTiers(b).runs)
			return nil
		})
		return shards, runs
	}
	before, runs := base()
	if len(before) != blockShards || runs != 0 {
		t.Fatalf("a first commit into an empty folder left %d shards and %d runs, want the base alone", len(before), runs)
	}
	for i := range 10 {
		if err := db.Update(func(tx *Tx) error {
			tx.countBlocks("/v", []string{big[i], blockID(rng.Uint64())}, +1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		after, runs := base()
		if !maps.Equal(before, after) {
			t.Fatalf("commit %d of two changes rewrote the base", i)
		}
		if runs == 0 || runs >= runsPerClass {
			t.Fatalf("after commit %d: %d runs", i, runs)
		}
	}
	if n := holders(t, db, big[3]); n != 2 {
		t.Fatalf("a block counted once in the base and once in a run is held by %d notes", n)
	}
}

// A schema 3 store's counts, the base alone, open as schema 4's base, read
// as they are and taken as the base by the commits after.
func TestBlockTiersReadSchema3Counts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := []uint64{5, 1 << 60, 1<<60 + 9}
	if err := db.Update(func(tx *Tx) error {
		b, err := tx.bucket(bucketBlocks).CreateBucketIfNotExists([]byte("/v"))
		if err != nil {
			return err
		}
		if err := b.Put(shardKey(ids[0]), appendEntry(nil, ids[0], 7)); err != nil {
			return err
		}
		if err := b.Put(shardKey(ids[1]), appendEntry(appendEntry(nil, ids[1], 2), ids[2], 12)); err != nil {
			return err
		}
		return tx.bucket(bucketMeta).Put(keySchema, binary.BigEndian.AppendUint64(nil, 3))
	}); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, path)
	db.View(func(tx *Tx) error {
		if v := binary.BigEndian.Uint64(tx.Meta(string(keySchema))); v != SchemaVersion {
			t.Errorf("a schema 3 store opens as schema %d", v)
		}
		return nil
	})
	m := &countModel{counts: map[string]map[uint64]int{"/v": {ids[0]: 7, ids[1]: 2, ids[2]: 12}}}
	if err := db.Update(func(tx *Tx) error {
		tx.countBlocks("/v", []string{blockID(ids[1]), blockID(ids[1]), blockID(ids[1])}, -1)
		tx.countBlocks("/v", []string{blockID(ids[2])}, +1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	delete(m.counts["/v"], ids[1])
	m.counts["/v"][ids[2]]++
	if err := db.View(func(tx *Tx) error { return checkCounts(tx, m, []string{"/v"}, append(ids, 77)) }); err != nil {
		t.Fatal(err)
	}
}

// seekEntry finds what findEntry finds, wherever in the run it is.
func TestSeekEntry(t *testing.T) {
	for n := range 40 {
		var run []byte
		for i := range n {
			run = appendEntry(run, uint64(2*i+2), 1)
		}
		for id := range uint64(2*n + 4) {
			at, ok := seekEntry(run, id)
			if wantAt, want := findEntry(run, id); at != wantAt || ok != want {
				t.Fatalf("%d entries, id %d: seekEntry = %d, %v; findEntry = %d, %v", n, id, at, ok, wantAt, want)
			}
		}
	}
}
