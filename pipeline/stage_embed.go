package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// Embed document formats, picked by embedFormatFor.
const (
	EmbedFormatGemma = "gemma" // EmbeddingGemma: "title: {title} | text: {heading path}\n{text}"
	EmbedFormatPlain = "plain" // "{title}\n{heading path}\n{text}"
)

// embedBatch is the most chunks one Embed call carries; the embedder packs
// the calls of concurrent notes into shared decodes.
const embedBatch = 64

// embedFormatFor picks the document format: EmbeddingGemma's for a model
// whose architecture or name says it is one, as the query side
// (memory.QueryText) decides, so queries and documents agree.
func embedFormatFor(info inference.ModelInfo) string {
	if info.IsEmbeddingGemma() {
		return EmbedFormatGemma
	}
	return EmbedFormatPlain
}

// documentText is a chunk as the embedder reads it: with its title and
// heading path, in the model's document format.
func documentText(format string, c *store.Chunk) string {
	heading := strings.Join(c.Heading, " > ")
	body := c.Text
	if heading != "" && heading != c.Title {
		body = heading + "\n" + c.Text
	}
	if format == EmbedFormatGemma {
		title := c.Title
		if title == "" {
			title = "none"
		}
		return "title: " + title + " | text: " + body
	}
	if c.Title == "" {
		return body
	}
	return c.Title + "\n" + body
}

// embedChunks embeds chunks in calls of up to embedBatch and returns one
// vector per chunk, in order.
func (ms *modelStages) embedChunks(ctx context.Context, chunks []store.NewChunk) ([][]float32, error) {
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = documentText(ms.embedFormat, &chunks[i].Chunk)
	}
	return ms.embedTexts(ctx, texts)
}

func (ms *modelStages) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += embedBatch {
		part := texts[lo:min(lo+embedBatch, len(texts))]
		t0 := time.Now()
		embs, err := ms.cfg.Embedder.Embed(ctx, part, inference.Background)
		if err != nil {
			return nil, fmt.Errorf("embed %d chunks: %w", len(part), err)
		}
		if len(embs) != len(part) {
			return nil, fmt.Errorf("embed %d chunks: the embedder returned %d vectors", len(part), len(embs))
		}
		tokens := 0
		for _, e := range embs {
			if len(e.Vector) != ms.cfg.Embedder.Dim() {
				return nil, fmt.Errorf("embed: a vector of %d values from an embedder of dimension %d", len(e.Vector), ms.cfg.Embedder.Dim())
			}
			tokens += e.Tokens
			out = append(out, e.Vector)
		}
		ms.stats.embed.add(len(part), tokens, 0, time.Since(t0))
	}
	return out, nil
}

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
		eff.puts = append(eff.puts, vectorPut{o.vectorFP, id, o.vectors[i]})
	}
	return nil
}
