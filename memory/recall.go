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
	sv, warn := s.vectors.acquire()
	if sv != nil {
		defer sv.release()
	}
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	if len(terms) == 0 && sv == nil {
		res.Warnings = append(res.Warnings, "the query has only stop words; add a more specific word")
	}
	var err error
	if sv != nil {
		err = s.hybrid(ctx, sv, q, terms, qtf, k, r, &res)
	} else {
		n := k
		if s.reranker != nil {
			n = max(k, min(s.fusion.RerankDepth, maxRerank))
		}
		err = s.db.View(func(tx *store.Tx) error {
			ranked, err := s.bm25.rank(tx, terms, qtf)
			if err != nil {
				return err
			}
			res.Hits = bm25Hits(filteredTop(tx, ranked, n, r.Filters, noteCache{}), n, r.Explain)
			return nil
		})
	}
	if err != nil {
		return RecallResult{}, fmt.Errorf("recall %q: %w", q, err)
	}
	if s.reranker != nil && len(res.Hits) > 0 {
		if err := rerank(ctx, s.reranker, q, res.Hits, max(k, s.fusion.RerankDepth), r.Explain); err != nil {
			if ctx.Err() != nil {
				return RecallResult{}, ctx.Err()
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("reranking failed (%v); hits are in fused order", err))
		}
	}
	res.Hits = res.Hits[:min(k, len(res.Hits))]
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// noteCache holds the notes read during one recall, nil for a note that is
// gone.
type noteCache map[string]*store.Note

func (nc noteCache) get(tx *store.Tx, path string) *store.Note {
	n, ok := nc[path]
	if !ok {
		var err error
		if n, err = tx.Note(path); err != nil {
			n = nil
		}
		nc[path] = n
	}
	return n
}

// candidate reads chunk id with its note, if both exist and pass f.
func (nc noteCache) candidate(tx *store.Tx, id uint64, f Filters) (candidate, bool) {
	c, err := tx.Chunk(id)
	if err != nil {
		return candidate{}, false // removed since it was ranked
	}
	n := nc.get(tx, c.Path)
	if n == nil || !f.matchNote(n) {
		return candidate{}, false
	}
	return candidate{chunk: c, note: n}, true
}

// filteredTop is the best n of ranked that pass f, best first. It sorts only
// as deep as the filters make it go.
func filteredTop(tx *store.Tx, ranked []scored, n int, f Filters, notes noteCache) []candidate {
	var out []candidate
	depth := 4*n + 50
	for {
		top := topScored(ranked, min(depth, len(ranked)))
		out = out[:0]
		for _, sc := range top {
			c, ok := notes.candidate(tx, sc.chunk, f)
			if !ok {
				continue
			}
			c.score = sc.score
			out = append(out, c)
			if len(out) == n {
				return out
			}
		}
		if depth >= len(ranked) {
			return out
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

func (f Filters) isZero() bool {
	return f.Folder == "" && f.PathPrefix == "" && len(f.Tags) == 0 && f.ModifiedAfter.IsZero() && f.ModifiedBefore.IsZero()
}

// matchNote reports whether note n passes f; its chunks share its folder
// and path.
func (f Filters) matchNote(n *store.Note) bool {
	if f.Folder != "" && n.Folder != strings.TrimRight(f.Folder, "/") {
		return false
	}
	if f.PathPrefix != "" && !strings.HasPrefix(n.Path, f.PathPrefix) {
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

// bm25Hits is the first k lexical candidates as hits.
func bm25Hits(lexical []candidate, k int, explain bool) []Hit {
	hits := make([]Hit, 0, min(k, len(lexical)))
	for i, c := range lexical[:min(k, len(lexical))] {
		h := hitOf(c.chunk, c.note, c.score)
		if explain {
			h.Why = []Reason{{List: "bm25", Rank: i + 1, Score: c.score}}
		}
		hits = append(hits, h)
	}
	return hits
}
