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

func (t *Tx) counter(name string) int64 {
	v := t.bucket(bucketMeta).Get([]byte(name))
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

func (t *Tx) addCounter(name string, delta int64) error {
	if delta == 0 {
		return nil
	}
	n := t.counter(name) + delta
	if n < 0 {
		n = 0
	}
	return t.bucket(bucketMeta).Put([]byte(name), binary.BigEndian.AppendUint64(nil, uint64(n)))
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
