package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/rank"
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
	query := rank.ParseQuery(q)
	res := memd.RecallResult{Hits: []memd.Hit{}}
	sv, warn := s.vectors.Acquire()
	if sv != nil {
		defer sv.Release()
	}
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	var err error
	if sv != nil {
		err = s.hybrid(ctx, sv, q, query, k, r, &res)
	} else {
		err = s.db.View(func(tx *store.Tx) error {
			scores, err := s.lexical(tx, q, query, s.expands(r), &res)
			if err != nil {
				return err
			}
			want, sc := s.hitsWanted(k), newScope(r.Filters, r.PerNote)
			bm := s.bm25List(bm25Kept(tx, scores, want, sc))
			res.Hits = hitsOf(tx, rank.Fuse(s.fusion.K, bm), want, sc, r.Explain, nil)
			return nil
		})
	}
	if err != nil {
		return memd.RecallResult{}, fmt.Errorf("recall %q: %w", q, err)
	}
	if len(query.Terms) == 0 && len(res.Hits) == 0 {
		res.Warnings = append(res.Warnings, "the query has only stop words; add a more specific word")
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
	if r.Excerpt != nil {
		r.Excerpt.Cut(res.Hits)
	}
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

// lexical ranks the chunks holding terms of query (parsed from text) by
// BM25, with its typos corrected (rank.Typos.Correct) and, when expand,
// expanded from the best chunks found (rank.Expansion); a correction is
// said in res.CorrectedQuery.
func (s *Service) lexical(tx *store.Tx, text string, query rank.Query, expand bool, res *memd.RecallResult) ([]rank.Scored, error) {
	c := corpusOf(tx)
	scores, df, err := s.bm25.Rank(tx, c, query)
	if err != nil {
		return nil, err
	}
	fixed, fixes := s.typos.Correct(query, df, func() *rank.Dictionary { return s.spelling.dictionary(tx) })
	if len(fixes) > 0 {
		if err := spellAsNotes(tx, text, fixes); err != nil {
			return nil, err
		}
		res.CorrectedQuery = rank.CorrectText(text, fixes)
		if scores, _, err = s.bm25.Rank(tx, c, fixed); err != nil {
			return nil, err
		}
	}
	if !expand || len(scores) == 0 {
		return scores, nil
	}
	expanded, err := s.expansion.Expand(feedback{tx, s.spelling.dictionary(tx)}, c, fixed, scores)
	if err != nil || len(expanded.Terms) == len(fixed.Terms) {
		return scores, err
	}
	scores, _, err = s.bm25.Rank(tx, c, expanded)
	return scores, err
}

// feedback is what query expansion reads: chunks' terms from tx, and
// document frequencies from the term dictionary, which holds them without
// a read of postings (the terms it cannot count, from tx).
type feedback struct {
	*store.Tx
	dict *rank.Dictionary
}

func (f feedback) DocFreq(term string) int {
	if f.dict != nil {
		if df, known := f.dict.DocFreq(term); known {
			return df
		}
	}
	return f.Tx.DocFreq(term)
}

// expands says whether recall r expands its query: as r asks, or as the
// service's config says when r does not.
func (s *Service) expands(r memd.RecallRequest) bool {
	if r.Expand != nil {
		return *r.Expand
	}
	return s.expandByDefault
}

// corpusOf is the statistics BM25 normalizes by, as of tx.
func corpusOf(tx *store.Tx) rank.Corpus {
	c := tx.Counts()
	return rank.Corpus{Chunks: c.Chunks, Length: c.Length}
}

// bm25List is BM25's ranking as a list to fuse.
func (s *Service) bm25List(entries []rank.Scored) rank.List {
	return rank.List{Name: "bm25", Weight: s.fusion.BM25Weight, Entries: entries}
}

// bm25Kept is the best n chunks of scores that are in sc (with one hit
// per note, each the best of its note), best first. It sorts only as deep
// as the filters make it go: when they reject too many, it goes on below
// the last chunk it read, so no chunk is read twice. scores is reordered.
func bm25Kept(tx *store.Tx, scores []rank.Scored, n int, sc *scope) []rank.Scored {
	if noFilters(sc.filters) && sc.hitNotes == nil {
		return rank.Top(scores, min(n, len(scores)))
	}
	kept := make([]rank.Scored, 0, min(n, len(scores)))
	notes := map[string]bool{} // with one hit per note, the notes kept
	read := 0
	for step := 4*n + 50; ; step *= 4 {
		top := rank.Top(scores, min(step, len(scores)))
		for _, x := range top[read:] {
			if !sc.holds(tx, x.Chunk) || !sc.firstOfNote(tx, x.Chunk, notes) {
				continue
			}
			if kept = append(kept, x); len(kept) == n {
				return kept
			}
		}
		if len(top) == len(scores) {
			return kept
		}
		read = len(top)
	}
}

// hitsOf reads the first want chunks of merged that are in sc into hits,
// scored by fusion (rank.Fuse's scale). Every recall builds its hits here:
// BM25 alone is a fusion of its one list.
func hitsOf(tx *store.Tx, merged []rank.Fused, want int, sc *scope, explain bool, keep func(rank.Fused) bool) []memd.Hit {
	hits := make([]memd.Hit, 0, min(want, len(merged)))
	for _, f := range merged {
		if keep != nil && !keep(f) {
			continue
		}
		h, ok := sc.hit(tx, f.Chunk, f.Score)
		if !ok {
			continue
		}
		if explain {
			h.Why = make([]memd.Reason, len(f.Why))
			for i, w := range f.Why {
				h.Why[i] = memd.Reason(w)
			}
		}
		hits = append(hits, h)
		if len(hits) == want {
			break
		}
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
