package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memd-dev/memd/store"
)

// maxQueryBytes bounds a query; longer text is not a query but a document.
const maxQueryBytes = 8 << 10

// Recall returns the chunks that best answer r.Query, best first.
func (s *Service) Recall(ctx context.Context, r RecallRequest) (RecallResult, error) {
	start := time.Now()
	q := strings.TrimSpace(r.Query)
	switch {
	case q == "":
		return RecallResult{}, fmt.Errorf("%w: the query is empty; pass the words to look for", ErrBadRequest)
	case len(q) > maxQueryBytes:
		return RecallResult{}, fmt.Errorf("%w: the query is %d bytes, over the %d-byte limit", ErrBadRequest, len(q), maxQueryBytes)
	case r.K < 0 || r.K > MaxK:
		return RecallResult{}, fmt.Errorf("%w: k must be between 1 and %d", ErrBadRequest, MaxK)
	}
	k := r.K
	if k == 0 {
		k = DefaultK
	}
	if err := ctx.Err(); err != nil {
		return RecallResult{}, err
	}
	terms, qtf := queryTerms(q)
	res := RecallResult{Hits: []Hit{}}
	if len(terms) == 0 {
		res.Warnings = append(res.Warnings, "the query has only stop words; add a more specific word")
	}
	err := s.db.View(func(tx *store.Tx) error {
		ranked, err := s.bm25.rank(tx, terms, qtf)
		if err != nil {
			return err
		}
		res.Hits, err = s.collect(tx, ranked, k, r.Filters, r.Explain)
		return err
	})
	if err != nil {
		return RecallResult{}, fmt.Errorf("recall %q: %w", q, err)
	}
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// collect turns ranked chunks into hits, applying filters, until k are found.
func (s *Service) collect(tx *store.Tx, ranked []scored, k int, f Filters, explain bool) ([]Hit, error) {
	notes := map[string]*store.Note{}
	hits := []Hit{}
	depth := 4*k + 50
	for {
		top := topScored(ranked, min(depth, len(ranked)))
		hits = hits[:0]
		for i, sc := range top {
			c, err := tx.Chunk(sc.chunk)
			if err != nil {
				continue // removed since the postings were read: impossible in one tx, harmless
			}
			n, ok := notes[c.Path]
			if !ok {
				if n, err = tx.Note(c.Path); err != nil {
					n = nil
				}
				notes[c.Path] = n
			}
			if n == nil || !f.match(c, n) {
				continue
			}
			h := hitOf(c, n, sc.score)
			if explain {
				h.Why = []Reason{{List: "bm25", Rank: i + 1, Score: sc.score}}
			}
			hits = append(hits, h)
			if len(hits) == k {
				return hits, nil
			}
		}
		if depth >= len(ranked) {
			return hits, nil
		}
		depth *= 4
	}
}

func hitOf(c *store.Chunk, n *store.Note, score float64) Hit {
	summary := c.Summary
	if summary == "" {
		summary = n.Summary
	}
	heading := c.Heading
	if heading == nil {
		heading = []string{}
	}
	return Hit{
		Folder: c.Folder, Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
		Heading: heading, Title: c.Title, Text: c.Text, Summary: summary,
		Score: score, ChunkID: c.ID,
	}
}

func (f Filters) match(c *store.Chunk, n *store.Note) bool {
	if f.Folder != "" && c.Folder != strings.TrimRight(f.Folder, "/") {
		return false
	}
	if f.PathPrefix != "" && !strings.HasPrefix(c.Path, f.PathPrefix) {
		return false
	}
	for _, t := range f.Tags {
		if !slices.Contains(n.Tags, strings.ToLower(strings.TrimPrefix(t, "#"))) {
			return false
		}
	}
	if !f.ModifiedAfter.IsZero() && !n.ModTime.After(f.ModifiedAfter) {
		return false
	}
	if !f.ModifiedBefore.IsZero() && !n.ModTime.Before(f.ModifiedBefore) {
		return false
	}
	return true
}
