package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// Recall returns the chunks that best answer r.Query, best first.
func (s *Service) Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
	start := time.Now()
	if err := r.Validate(); err != nil {
		return memd.RecallResult{}, err
	}
	q := strings.TrimSpace(r.Query)
	k := r.K
	if k == 0 {
		k = memd.DefaultK
	}
	if err := ctx.Err(); err != nil {
		return memd.RecallResult{}, err
	}
	terms, qtf := queryTerms(q)
	res := memd.RecallResult{Hits: []memd.Hit{}}
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
		err = s.db.View(func(tx *store.Tx) error {
			ranked, err := s.bm25.rank(tx, terms, qtf)
			if err != nil {
				return err
			}
			res.Hits = bm25Hits(tx, ranked, s.hitsWanted(k), newScope(r.Filters, r.PerNote), r.Explain)
			return nil
		})
	}
	if err != nil {
		return memd.RecallResult{}, fmt.Errorf("recall %q: %w", q, err)
	}
	if s.reranker != nil && len(res.Hits) > 0 {
		if err := rerank(ctx, s.reranker, q, res.Hits, max(k, s.fusion.RerankDepth), r.Explain); err != nil {
			if ctx.Err() != nil {
				return memd.RecallResult{}, ctx.Err()
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("reranking failed (%v); hits are in fused order", err))
		}
	}
	res.Hits = res.Hits[:min(k, len(res.Hits))]
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// hitsWanted is how many hits a recall of k reads: the reranker, when
// there is one, re-orders more than k.
func (s *Service) hitsWanted(k int) int {
	if s.reranker == nil {
		return k
	}
	return max(k, min(s.fusion.RerankDepth, maxRerank))
}

// bm25Hits is the best n chunks of ranked in sc as hits, best first, scored
// by BM25. It sorts only as deep as the filters make it go: when they
// reject too many, it goes on below the last chunk it read, so no chunk is
// read twice. ranked is consumed: its contents are overwritten.
func bm25Hits(tx *store.Tx, ranked []scored, n int, sc *scope, explain bool) []memd.Hit {
	hits := make([]memd.Hit, 0, min(n, len(ranked)))
	rest := ranked
	for step := 4*n + 50; len(rest) > 0; step *= 4 {
		batch := topScored(rest, min(step, len(rest)))
		for _, x := range batch {
			h, ok := sc.hit(tx, x.chunk, x.score)
			if !ok {
				continue
			}
			if explain {
				h.Why = []memd.Reason{{List: "bm25", Rank: len(hits) + 1, Score: x.score}}
			}
			hits = append(hits, h)
			if len(hits) == n {
				return hits
			}
		}
		if len(batch) == len(rest) {
			break
		}
		last := batch[len(batch)-1]
		rest = slices.DeleteFunc(rest, func(x scored) bool { return !better(last, x) })
	}
	return hits
}

// hitOf is chunk c as a hit; its summary is the note's, noteSummary, when
// it has none of its own.
func hitOf(c *store.Chunk, noteSummary string, score float64) memd.Hit {
	summary := c.Summary
	if summary == "" {
		summary = noteSummary
	}
	heading := c.Heading
	if heading == nil {
		heading = []string{}
	}
	return memd.Hit{
		Folder: c.Folder, Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
		Heading: heading, Title: c.Title, Text: c.Text, Summary: summary,
		Score: score, ChunkID: c.ID,
	}
}
