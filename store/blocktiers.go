package store

import (
	"encoding/binary"
	"slices"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// A folder's block counts are kept in tiers, a small log-structured merge:
// counts add up, so a tier may hold changes of counts, and a block's count
// is the sum over the tiers. A bulk add's commit brings ~20k new blocks,
// which touch every shard, so a commit that rewrote the shards it touched
// rewrote the whole bucket (a first index of 100k notes spilled 348 MB of
// pages for a 12 MB bucket); a transaction adds its changes as a run
// instead.
//
// The base is the blockShards shards of counts (blocks.go), the whole of
// schema 3's form. A run is one sorted value of entries as wide as the
// base's, whose 4 bytes are a signed change, the one value (key runValue)
// of a bucket of its own (key runPrefix, then a sequence number): bbolt
// keeps at least two keys to a leaf and never splits one of four or
// fewer, so runs side by side in one leaf were written again with every
// run put beside them (87 MB spilled over the 100k notes' index, not 54).
//
// When runsPerClass runs of one size class (under 16 KiB, then each class
// runsPerClass times the last) gather, they are merged into one, so a
// change is rewritten once a class it climbs, not once a commit. When the
// runs hold more than 1/baseShare of the base's bytes they are all merged
// into the base, where the counts that reach 0 go; so the base grows by
// half at least between merges, and the runs a read goes through are at
// most half its size again. Pages of the blocks bucket a first index of
// the 100k notes (49 commits) spilled, by runsPerClass and baseShare:
// 4 and 2, 54 MB; 4 and 1, 45 MB (runs as large as the base); 4 and 4,
// 74 MB; 3 and 2, 57 MB; 8 and 2, 52 MB (up to 7 runs a class).
const (
	runPrefix    = 0xfe
	runValue     = 0
	runsPerClass = 4
	baseShare    = 2
	runClass0    = 16 << 10
)

// blockTiers is one folder's counts as a transaction sees them: its bucket
// and its runs, in key order.
type blockTiers struct {
	b    *bolt.Bucket
	runs []blockRun
}

type blockRun struct {
	key     []byte
	entries []byte
}

// readTiers reads the runs of b, a folder's counts.
func readTiers(b *bolt.Bucket) blockTiers {
	tiers := blockTiers{b: b}
	c := b.Cursor()
	for k, _ := c.Seek([]byte{runPrefix}); k != nil && k[0] == runPrefix; k, _ = c.Next() {
		tiers.runs = append(tiers.runs, blockRun{slices.Clone(k), b.Bucket(k).Get([]byte{runValue})})
	}
	return tiers
}

// blockCounter reads the counts of one folder's blocks in ascending order
// of their ids.
type blockCounter struct {
	b     *bolt.Bucket
	shard int
	base  []byte   // the base shard of the last id read, from that id on
	runs  [][]byte // each run from the last id read on
}

func (tiers blockTiers) counter() *blockCounter {
	c := &blockCounter{b: tiers.b, shard: -1}
	for _, r := range tiers.runs {
		c.runs = append(c.runs, r.entries)
	}
	return c
}

// count is the count of id, which is no lower than the last id read.
func (c *blockCounter) count(id uint64) int {
	if s := int(shardOf(id)); s != c.shard {
		c.base, c.shard = c.b.Get(shardKey(id)), s
	}
	n := 0
	at, ok := seekEntry(c.base, id)
	if ok {
		n = entryValue(c.base[at:])
	}
	c.base = c.base[at:]
	for i, run := range c.runs {
		at, ok := seekEntry(run, id)
		if ok {
			n += entryValue(run[at:])
		}
		c.runs[i] = run[at:]
	}
	return n
}

// seekEntry is findEntry for an id likely near the start of run: it
// doubles its step from there, then searches the last step, so that a
// commit's ~20k ids read in order through a run of ~80k take a few steps
// each, not 17.
func seekEntry(run []byte, id uint64) (int, bool) {
	end := blockEntryBytes
	for end < len(run) && binary.BigEndian.Uint64(run[end:]) < id {
		end *= 2
	}
	end = min(end, len(run))
	start := end / 2 / blockEntryBytes * blockEntryBytes
	at, ok := findEntry(run[start:end], id)
	if !ok && start+at == end && end < len(run) {
		return end, binary.BigEndian.Uint64(run[end:]) == id
	}
	return start + at, ok
}

// addRun puts run, count changes in id order, as a run of its own, then
// merges the runs of a size class that has runsPerClass, and all runs into
// the base once they hold more than 1/baseShare of its bytes.
func (t *Tx) addRun(tiers *blockTiers, run []byte) error {
	var seq uint64
	for _, r := range tiers.runs {
		seq = max(seq, binary.BigEndian.Uint64(r.key[1:])+1)
	}
	key := binary.BigEndian.AppendUint64([]byte{runPrefix}, seq)
	rb, err := tiers.b.CreateBucket(key)
	if err != nil {
		return err
	}
	if err := rb.Put([]byte{runValue}, run); err != nil {
		return err
	}
	tiers.runs = append(tiers.runs, blockRun{key, run})
	for {
		same := tiers.fullClass()
		if same == nil {
			break
		}
		if err := t.mergeRuns(tiers, same); err != nil {
			return err
		}
	}
	size := 0
	for _, r := range tiers.runs {
		size += len(r.entries)
	}
	if size == 0 || baseHolds(tiers.b, baseShare*size) {
		return nil
	}
	return t.mergeIntoBase(tiers)
}

// fullClass returns the runs of the lowest size class that holds
// runsPerClass of them, nil when none does.
func (tiers *blockTiers) fullClass() []int {
	var classes [][]int
	for i, r := range tiers.runs {
		c := sizeClass(len(r.entries))
		for len(classes) <= c {
			classes = append(classes, nil)
		}
		if classes[c] = append(classes[c], i); len(classes[c]) == runsPerClass {
			return classes[c]
		}
	}
	return nil
}

func sizeClass(size int) int {
	c := 0
	for ; size >= runClass0; size /= runsPerClass {
		c++
	}
	return c
}

// mergeRuns merges the runs at which into one, under the first's key.
func (t *Tx) mergeRuns(tiers *blockTiers, which []int) error {
	parts := make([][]byte, len(which))
	size := 0
	for i, w := range which {
		parts[i] = tiers.runs[w].entries
		size += len(parts[i])
	}
	a := t.arena()
	merged := a.claim(mergeEntries(a.room(size), parts...))
	key := tiers.runs[which[0]].key
	var rest []blockRun
	for i, r := range tiers.runs {
		if !slices.Contains(which, i) {
			rest = append(rest, r)
		} else if i != which[0] {
			if err := tiers.b.DeleteBucket(r.key); err != nil {
				return err
			}
		}
	}
	if tiers.runs = rest; len(merged) == 0 {
		return tiers.b.DeleteBucket(key)
	}
	tiers.runs = append(tiers.runs, blockRun{key, merged})
	return tiers.b.Bucket(key).Put([]byte{runValue}, merged)
}

// baseHolds reports whether the base shards of b hold at least size bytes,
// reading their lengths only until they do.
func baseHolds(b *bolt.Bucket, size int) bool {
	c := b.Cursor()
	for k, v := c.First(); k != nil && len(k) == 2; k, v = c.Next() {
		if size -= len(v); size <= 0 {
			return true
		}
	}
	return false
}

// mergeIntoBase adds every run to the base shards it falls in and deletes
// the runs.
func (t *Tx) mergeIntoBase(tiers *blockTiers) error {
	parts := make([][]byte, len(tiers.runs))
	size := 0
	for i, r := range tiers.runs {
		if err := tiers.b.DeleteBucket(r.key); err != nil {
			return err
		}
		parts[i] = r.entries
		size += len(r.entries)
	}
	tiers.runs = nil
	changes := mergeEntries(make([]byte, 0, size), parts...)
	a := t.arena()
	for len(changes) > 0 {
		end := len(changes) // of the changes in the shard of the first
		if s := shardOf(binary.BigEndian.Uint64(changes)); s < blockShards-1 {
			end, _ = findEntry(changes, uint64(s+1)<<54)
		}
		key := shardKey(binary.BigEndian.Uint64(changes))
		old := tiers.b.Get(key)
		shard := a.claim(mergeEntries(a.room(len(old)+end), old, changes[:end]))
		var err error
		if len(shard) == 0 {
			err = tiers.b.Delete(key)
		} else {
			err = tiers.b.Put(key, shard)
		}
		if err != nil {
			return err
		}
		changes = changes[end:]
	}
	return nil
}

// mergeEntries appends to dst the entries of parts (each in id order)
// summed by id, leaving out sums of 0. Merged into the base no sum is
// below 0: each run's changes keep the count they change at 0 or more
// (flushFolderBlocks).
func mergeEntries(dst []byte, parts ...[]byte) []byte {
	parts = slices.Clone(parts)
	for {
		var id uint64
		found := false
		for _, p := range parts {
			if len(p) > 0 && (!found || binary.BigEndian.Uint64(p) < id) {
				id, found = binary.BigEndian.Uint64(p), true
			}
		}
		if !found {
			return dst
		}
		sum := 0
		for i, p := range parts {
			if len(p) > 0 && binary.BigEndian.Uint64(p) == id {
				sum += entryValue(p)
				parts[i] = p[blockEntryBytes:]
			}
		}
		if sum != 0 {
			dst = appendEntry(dst, id, sum)
		}
	}
}

// entryValue is the count, or the change of one, of the entry at the start
// of run: 4 bytes of two's complement.
func entryValue(run []byte) int { return int(int32(binary.BigEndian.Uint32(run[8:]))) }

func appendEntry(dst []byte, id uint64, value int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(dst, id), uint32(int32(value)))
}
