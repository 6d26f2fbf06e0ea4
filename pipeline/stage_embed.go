package pipeline

import (
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// putVectors writes an outcome's vectors under the ids PutNote gave its
// chunks, in the note's transaction.
func putVectors(tx *store.Tx, o *outcome, eff *txEffects) error {
	if o.vectorFP == "" {
		if len(o.chunks) > 0 {
			eff.unembedded = true
		}
		return nil
	}
	for i := range o.chunks {
		if i >= len(o.vectors) || o.vectors[i] == nil {
			continue
		}
		id := o.chunks[i].ID
		if err := tx.PutVector(o.vectorFP, id, o.vectors[i]); err != nil {
			return err
		}
		eff.puts = append(eff.puts, vector.Put{Fingerprint: o.vectorFP, Chunk: id, Vector: o.vectors[i]})
	}
	return nil
}
