package store

// The enrich queue holds the notes stored with the heuristic's chunks whose
// model stages (chunk, summarize, embed) are still to run. A note is queued
// in the transaction that writes it, and leaves the queue in the one that
// replaces its chunks with the enriched ones, or when it is deleted; so a
// crash never loses an enrichment, and a mark never outlives its note. A
// rename (MoveNote) takes the mark along.

// QueueEnrich marks the note at path for the model stages.
func (t *Tx) QueueEnrich(path string) error {
	b := t.bucket(bucketEnrich)
	if t.get(bucketEnrich, []byte(path)) != nil {
		return nil
	}
	if err := b.Put([]byte(path), enrichMark); err != nil {
		return err
	}
	t.addCounter(counterEnrich, 1)
	return nil
}

// EnrichQueue returns up to limit queued paths, in path order, from after
// (exclusive; "" for the first).
func (t *Tx) EnrichQueue(after string, limit int) []string {
	var out []string
	c := t.bucket(bucketEnrich).Cursor()
	k, _ := c.Seek([]byte(after))
	if k != nil && after != "" && string(k) == after {
		k, _ = c.Next()
	}
	for ; k != nil && len(out) < limit; k, _ = c.Next() {
		out = append(out, string(k))
	}
	return out
}

// Enriching reports whether the note at path is queued for the model stages.
func (t *Tx) Enriching(path string) bool {
	return t.get(bucketEnrich, []byte(path)) != nil
}

// FinishEnrich takes the note at path off the queue, if it is on it.
func (t *Tx) FinishEnrich(path string) error {
	b := t.bucket(bucketEnrich)
	if t.get(bucketEnrich, []byte(path)) == nil {
		return nil
	}
	if err := b.Delete([]byte(path)); err != nil {
		return err
	}
	t.addCounter(counterEnrich, -1)
	return nil
}

func (t *Tx) moveEnrich(from, to string) error {
	if from == to || !t.Enriching(from) {
		return nil
	}
	if err := t.FinishEnrich(from); err != nil {
		return err
	}
	return t.QueueEnrich(to)
}

// enrichMark is a queued path's value: bbolt's Get cannot tell an empty
// value from a missing key.
var enrichMark = []byte{1}
