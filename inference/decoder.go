package inference

import (
	"errors"
	"fmt"

	"github.com/memd-dev/memd/inference/llama"
)

// ContextDecoder is a llama.cpp context as a Scheduler's Decoder. Like the
// context, it is not safe for concurrent use: give it to one Scheduler.
type ContextDecoder struct {
	ctx   *llama.Context
	batch *llama.Batch
}

// NewContextDecoder wraps c, with a batch of c's n_batch tokens. Close
// frees the batch and c.
func NewContextDecoder(c *llama.Context) *ContextDecoder {
	return &ContextDecoder{ctx: c, batch: llama.NewBatch(c.NBatch(), 1)}
}

// Decode implements Decoder.
func (d *ContextDecoder) Decode(b []BatchToken) error {
	d.batch.Clear()
	for _, t := range b {
		d.batch.Add(t.Token, t.Pos, t.Seq, t.Logits)
	}
	err := d.ctx.Decode(d.batch)
	if errors.Is(err, llama.ErrNoKVSlot) {
		return fmt.Errorf("%w: %w", ErrKVFull, err)
	}
	return err
}

// Logits implements Decoder.
func (d *ContextDecoder) Logits(i int) []float32 { return d.ctx.Logits(i) }

// RemoveSeq implements Decoder.
func (d *ContextDecoder) RemoveSeq(seq, from int32) error {
	if !d.ctx.SeqRemove(seq, from, -1) {
		return fmt.Errorf("remove positions %d.. of sequence %d: refused by the cache", from, seq)
	}
	return nil
}

// Close frees the batch and the context. Close the Scheduler first.
func (d *ContextDecoder) Close() {
	d.batch.Free()
	d.ctx.Close()
}
