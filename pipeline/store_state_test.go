package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// storeState is what a test can see of the store through its API: counts,
// notes, chunks, the postings and hash entries of a probe, vectors and skips.
type storeState struct {
	Counts   store.Counts
	MaxChunk uint64
	Notes    map[string]noteState
	Chunks   map[uint64]store.Chunk
	Postings map[string][]store.Posting
	Hashes   map[string][]string // content hash -> NotesWithHash
	Vectors  map[string][]uint64 // fingerprint -> chunk ids
	Skips    map[string]string   // path -> reason
}

// probe is what stateOf looks up beyond the stored notes: terms and content
// hashes, so that a state also shows postings and hash entries left behind
// by notes no longer stored.
type probe struct{ terms, hashes []string }

type noteState struct {
	Folder, Hash, Chunker string
	Chunks                []uint64
}

// probeOf returns the terms and hashes of texts and of every file under
// dirs.
func probeOf(t *testing.T, dirs []string, texts ...string) probe {
	t.Helper()
	terms, hashes := map[string]bool{}, map[string]bool{}
	var tc termCounter
	add := func(s string) {
		for _, tn := range tc.count(s, nil, 0, nil) {
			terms[tc.vocab.Term(tn.Num)] = true
		}
		sum := sha256.Sum256([]byte(s))
		hashes[hex.EncodeToString(sum[:])] = true
	}
	for _, s := range texts {
		add(s)
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			add(string(b))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return probe{slices.Sorted(maps.Keys(terms)), slices.Sorted(maps.Keys(hashes))}
}

func stateOf(t *testing.T, db *store.DB, pr probe) storeState {
	t.Helper()
	s := storeState{Notes: map[string]noteState{}, Chunks: map[uint64]store.Chunk{}, Postings: map[string][]store.Posting{},
		Hashes: map[string][]string{}, Vectors: map[string][]uint64{}, Skips: map[string]string{}}
	err := db.View(func(tx *store.Tx) error {
		s.Counts, s.MaxChunk = tx.Counts(), tx.MaxChunkID()
		if err := tx.ForEachNote("", func(n *store.Note) error {
			s.Notes[n.Path] = noteState{n.Folder, n.Hash, n.Chunker, slices.Clone(n.Chunks)}
			return nil
		}); err != nil {
			return err
		}
		if err := tx.ForEachChunk(func(c *store.Chunk) error {
			s.Chunks[c.ID] = *c
			return nil
		}); err != nil {
			return err
		}
		for _, h := range pr.hashes {
			for _, n := range tx.NotesWithHash(h) {
				s.Hashes[h] = append(s.Hashes[h], n.Path)
			}
		}
		for _, term := range pr.terms {
			ps, err := tx.Postings(term, nil)
			if err != nil {
				return err
			}
			if len(ps) > 0 {
				s.Postings[term] = ps
			}
		}
		for _, fp := range tx.VectorFingerprints() {
			if err := tx.ForEachVector(fp, func(id uint64, _ store.QuantizedVector) error {
				s.Vectors[fp] = append(s.Vectors[fp], id)
				return nil
			}); err != nil {
				return err
			}
			if got := tx.VectorCount(fp); got != len(s.Vectors[fp]) {
				return fmt.Errorf("vector count of %s is %d; %d vectors are stored", fp, got, len(s.Vectors[fp]))
			}
		}
		skips, err := tx.Skips()
		for _, sk := range skips {
			s.Skips[sk.Path] = sk.Reason
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// check fails t unless the state is consistent: every chunk belongs to a
// stored note, every note's chunk is stored, the counts match.
func (s storeState) check(t *testing.T) {
	t.Helper()
	owned := 0
	for path, n := range s.Notes {
		for _, id := range n.Chunks {
			if c, ok := s.Chunks[id]; !ok || c.Path != path || c.Folder != n.Folder {
				t.Errorf("note %s: chunk %d is %+v (stored %v)", path, id, c, ok)
			}
		}
		owned += len(n.Chunks)
	}
	if owned != len(s.Chunks) {
		t.Errorf("%d chunks stored, notes own %d", len(s.Chunks), owned)
	}
	if s.Counts.Notes != len(s.Notes) || s.Counts.Chunks != len(s.Chunks) {
		t.Errorf("counts %+v, stored %d notes and %d chunks", s.Counts, len(s.Notes), len(s.Chunks))
	}
}

func diffState(t *testing.T, what string, got, want storeState) {
	t.Helper()
	got.check(t)
	if reflect.DeepEqual(got, want) {
		return
	}
	v := reflect.ValueOf(want)
	for i := range v.NumField() {
		g, w := reflect.ValueOf(got).Field(i).Interface(), v.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s\n got %+v\nwant %+v", what, v.Type().Field(i).Name, g, w)
		}
	}
}

// eventsOf collects the events sent until the indexer is idle again.
func eventsOf(t *testing.T, ti *testIndexer, ch <-chan memd.Event) []memd.Event {
	t.Helper()
	ti.waitIdle(t)
	var out []memd.Event
	for {
		select {
		case ev := <-ch:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func embedConfig() Config {
	cfg := testConfig()
	cfg.Embedder = &fakeEmb{fp: "emb-a", dim: 4}
	return cfg
}

// TestForgetLeavesStoreAsBefore indexes a note and forgets it: the store
// is as it was before the note came, but for the "forgotten" skip.
func TestForgetLeavesStoreAsBefore(t *testing.T) {
	dir := smallFolder(t)
	ti := startIndexer(t, embedConfig())
	addAndWait(t, ti, dir)
	const text = "# Omega\n\nOmega is about olives and apricots.\n\n## Later\n\nBananas again.\n"
	pr := probeOf(t, []string{dir}, text)
	before, vecs := stateOf(t, ti.db, pr), ti.served("emb-a")

	p := filepath.Join(dir, "omega.md")
	writeFile(t, p, text)
	waitFor(t, "the new note", func() bool { return ti.note(p) != nil })
	ti.waitIdle(t)
	events := ti.Subscribe(t.Context())
	if err := ti.Forget(bg, p); err != nil {
		t.Fatal(err)
	}
	evs := eventsOf(t, ti, events)

	want := before
	want.Counts.Skipped++
	want.Skips = maps.Clone(before.Skips)
	want.Skips[p] = ReasonForgotten
	after := stateOf(t, ti.db, pr)
	want.MaxChunk = after.MaxChunk // the note's chunk ids are not handed out again
	diffState(t, "after Forget", after, want)
	if got := ti.served("emb-a"); got != vecs {
		t.Errorf("the in-memory index holds %d vectors, %d before the note", got, vecs)
	}
	if len(evs) != 1 || evs[0].Type != memd.EventRemoved || evs[0].Path != p || evs[0].Reason != ReasonForgotten ||
		evs[0].Folder != dir || evs[0].Notes != before.Counts.Notes {
		t.Errorf("Forget sent %+v, want one %s event for %s", evs, memd.EventRemoved, p)
	}
}

// TestRemoveFolderLeavesStoreAsBefore adds a second folder whose notes share
// terms with the first and removes it: the store is as it was before.
func TestRemoveFolderLeavesStoreAsBefore(t *testing.T) {
	dir, other := smallFolder(t), smallFolder(t)
	for i := range 20 {
		writeFile(t, filepath.Join(other, "more", fmt.Sprintf("n%02d.md", i)),
			fmt.Sprintf("# Note %d\n\nApricots, bananas and word%d.\n\n## Part\n\nGrapes %d.\n", i, i, i))
	}
	pr := probeOf(t, []string{dir, other})
	ti := startIndexer(t, embedConfig())
	addAndWait(t, ti, dir)
	before, vecs := stateOf(t, ti.db, pr), ti.served("emb-a")

	addAndWait(t, ti, other)
	if c := ti.counts(); c.Notes != 26 {
		t.Fatalf("%d notes with both folders, want 26", c.Notes)
	}
	events := ti.Subscribe(t.Context())
	if err := ti.RemoveFolder(bg, other); err != nil {
		t.Fatal(err)
	}
	evs := eventsOf(t, ti, events)

	after := stateOf(t, ti.db, pr)
	want := before
	want.MaxChunk = after.MaxChunk
	diffState(t, "after RemoveFolder", after, want)
	if got := ti.served("emb-a"); got != vecs {
		t.Errorf("the in-memory index holds %d vectors, %d before the folder", got, vecs)
	}
	if m, f, h := ti.ChunkerCounts(); m+f+h != before.Counts.Notes {
		t.Errorf("chunker counts %d+%d+%d, want %d notes", m, f, h, before.Counts.Notes)
	}
	if len(evs) != 1 || evs[0].Type != memd.EventProgress || evs[0].Folder != other || evs[0].Notes != before.Counts.Notes {
		t.Errorf("RemoveFolder sent %+v, want one %s event for %s", evs, memd.EventProgress, other)
	}
}

// TestRenameKeepsStore renames one note to a new path and another over an
// existing note: chunks, ids, postings and vectors follow, nothing else
// changes.
func TestRenameKeepsStore(t *testing.T) {
	dir := smallFolder(t)
	pr := probeOf(t, []string{dir})
	ti := startIndexer(t, embedConfig())
	addAndWait(t, ti, dir)
	alpha, beta, gamma := filepath.Join(dir, "alpha.md"), filepath.Join(dir, "beta.md"), filepath.Join(dir, "sub", "gamma.txt")
	before, vecs := stateOf(t, ti.db, pr), ti.served("emb-a")

	moved := func(s storeState, from, to string) storeState {
		n := s.Notes[from]
		s.Notes = maps.Clone(s.Notes)
		delete(s.Notes, from)
		s.Notes[to] = n
		s.Chunks = maps.Clone(s.Chunks)
		for _, id := range n.Chunks {
			c := s.Chunks[id]
			c.Path = to
			s.Chunks[id] = c
		}
		s.Hashes = maps.Clone(s.Hashes)
		dropHashPath(s.Hashes, n.Hash, from)
		s.Hashes[n.Hash] = append(s.Hashes[n.Hash], to)
		slices.Sort(s.Hashes[n.Hash])
		return s
	}

	t.Run("to a new path", func(t *testing.T) {
		events := ti.Subscribe(t.Context())
		to := filepath.Join(dir, "sub", "beta-renamed.md")
		if err := os.Rename(beta, to); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rename", func() bool { return ti.note(to) != nil && ti.note(beta) == nil })
		evs := eventsOf(t, ti, events)
		want := moved(before, beta, to)
		diffState(t, "after the rename", stateOf(t, ti.db, pr), want)
		if got := ti.served("emb-a"); got != vecs {
			t.Errorf("the in-memory index holds %d vectors, %d before", got, vecs)
		}
		checkRenameEvents(t, evs, beta, to)
		before = want
	})
	t.Run("over a stored note", func(t *testing.T) {
		events := ti.Subscribe(t.Context())
		if err := os.Rename(alpha, gamma); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rename", func() bool { return ti.note(alpha) == nil })
		evs := eventsOf(t, ti, events)
		gone := before.Notes[gamma].Chunks
		want := moved(before, alpha, gamma)
		dropHashPath(want.Hashes, before.Notes[gamma].Hash, gamma)
		want.Counts.Notes--
		want.Counts.Chunks -= len(gone)
		for _, id := range gone {
			delete(want.Chunks, id)
		}
		want.Postings = map[string][]store.Posting{}
		goneLength := map[uint64]int64{} // every posting of a chunk carries its length
		for term, ps := range before.Postings {
			for _, p := range ps {
				if slices.Contains(gone, p.Chunk) {
					goneLength[p.Chunk] = int64(p.Length)
				}
			}
			ps = slices.DeleteFunc(slices.Clone(ps), func(p store.Posting) bool { return slices.Contains(gone, p.Chunk) })
			if len(ps) > 0 {
				want.Postings[term] = ps
			}
		}
		want.Vectors = map[string][]uint64{}
		for fp, ids := range before.Vectors {
			want.Vectors[fp] = slices.DeleteFunc(slices.Clone(ids), func(id uint64) bool { return slices.Contains(gone, id) })
		}
		if len(goneLength) != len(gone) {
			t.Fatalf("the probe's postings show %d of the %d replaced chunks", len(goneLength), len(gone))
		}
		for _, l := range goneLength {
			want.Counts.Length -= l
		}
		diffState(t, "after the rename", stateOf(t, ti.db, pr), want)
		if got := ti.served("emb-a"); got != vecs-len(gone) {
			t.Errorf("the in-memory index holds %d vectors, want %d", got, vecs-len(gone))
		}
		checkRenameEvents(t, evs, alpha, gamma)
	})
}

func dropHashPath(hashes map[string][]string, hash, path string) {
	ps := slices.DeleteFunc(slices.Clone(hashes[hash]), func(p string) bool { return p == path })
	if len(ps) == 0 {
		delete(hashes, hash)
		return
	}
	hashes[hash] = ps
}

func checkRenameEvents(t *testing.T, evs []memd.Event, from, to string) {
	t.Helper()
	var got []string
	for _, ev := range evs {
		if ev.Type != memd.EventProgress {
			got = append(got, fmt.Sprintf("%s %s %s", ev.Type, ev.Path, ev.Reason))
		}
	}
	want := []string{
		fmt.Sprintf("%s %s ", memd.EventRemoved, from),
		fmt.Sprintf("%s %s renamed from %s", memd.EventIndexed, to, from),
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}
