package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memd-dev/memd"
)

// Reranker scores how well each text answers query, higher better: a
// cross-encoder that reads the query and the text together. Scores are
// comparable within one call only.
type Reranker interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}

// maxRerank caps how many hits one recall reranks, whatever k asks: a
// cross-encoder reads every text in full.
const maxRerank = 100

// rerank re-orders the first n hits (n = max(RerankDepth, len asked) up to
// maxRerank) by the reranker's scores; Score becomes the reranker's.
// Hits past n keep their order, with scores moved below the reranked ones
// so Score still falls down the list. A reranker error leaves hits as
// they were and returns it.
func rerank(ctx context.Context, r Reranker, query string, hits []memd.Hit, depth int, explain bool) error {
	n := min(len(hits), max(depth, 0), maxRerank)
	if n == 0 {
		return nil
	}
	texts := make([]string, n)
	for i, h := range hits[:n] {
		texts[i] = rerankText(h)
	}
	scores, err := r.Rerank(ctx, query, texts)
	if err != nil {
		return err
	}
	if len(scores) != n {
		return fmt.Errorf("the reranker gave %d scores for %d texts", len(scores), n)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	head := make([]memd.Hit, n)
	for rank, i := range order {
		h := hits[i]
		h.Score = scores[i]
		if explain {
			h.Why = append(h.Why, memd.Reason{List: "rerank", Rank: rank + 1, Score: scores[i]})
		}
		head[rank] = h
	}
	copy(hits, head)
	if tail := hits[n:]; len(tail) > 0 {
		floor := head[n-1].Score
		for i := range tail {
			tail[i].Score = floor - 1 - float64(i)/float64(len(tail))
		}
	}
	return nil
}

// rerankText is what the reranker reads of a hit: its title and heading
// path give the text its context, as in the embedder's document format.
func rerankText(h memd.Hit) string {
	t := h.Text
	if len(h.Heading) > 0 {
		t = strings.Join(h.Heading, " > ") + "\n" + t
	}
	if h.Title != "" {
		t = h.Title + "\n" + t
	}
	return t
}
