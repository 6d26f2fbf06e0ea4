package store

import "encoding/binary"

// Counters kept in the meta bucket, so status never walks a bucket.
const (
	counterNotes  = "count.notes"
	counterChunks = "count.chunks"
	counterLength = "count.length" // sum of chunk lengths in terms, for BM25
	counterJobs   = "count.jobs"
	counterSkips  = "count.skips"
	counterEnrich = "count.enrich"
)

// counter is a counter's value as this transaction sees it, its own
// changes included.
func (t *Tx) counter(name string) int64 {
	return max(t.storedCounter(name)+t.counterDeltas[name], 0)
}

func (t *Tx) storedCounter(name string) int64 {
	v := t.get(bucketMeta, []byte(name))
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// addCounter changes a counter when the transaction commits
// (flushCounters): a batch changes the same few counters several times a
// note, and a Get and a Put each time were as many bbolt operations as
// the note's own records.
func (t *Tx) addCounter(name string, delta int64) {
	if delta == 0 {
		return
	}
	if t.counterDeltas == nil {
		t.counterDeltas = map[string]int64{}
	}
	t.counterDeltas[name] += delta
}

// flushCounters writes each counter the transaction changed, once; a
// counter never goes below zero.
func (t *Tx) flushCounters() error {
	for name, delta := range t.counterDeltas {
		if delta == 0 {
			continue
		}
		n := uint64(t.counter(name))
		if err := t.bucket(bucketMeta).Put([]byte(name), binary.BigEndian.AppendUint64(nil, n)); err != nil {
			return err
		}
	}
	t.counterDeltas = nil
	return nil
}

// Counts are the store's totals, read in O(1).
type Counts struct {
	Notes   int
	Chunks  int
	Length  int64 // total terms over all chunks
	Pending int   // queued jobs
	Skipped int
	// Enriching counts notes stored with the heuristic's chunks whose
	// model stages are still to run.
	Enriching int
}

// Counts returns the totals as of this transaction.
func (t *Tx) Counts() Counts {
	return Counts{
		Notes:   int(t.counter(counterNotes)),
		Chunks:  int(t.counter(counterChunks)),
		Length:  t.counter(counterLength),
		Pending: int(t.counter(counterJobs)),
		Skipped: int(t.counter(counterSkips)),

		Enriching: int(t.counter(counterEnrich)),
	}
}
