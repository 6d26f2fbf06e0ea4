package rank

import (
	"math"
	"slices"
	"strings"
)

// Query expansion by pseudo-relevance feedback, in the manner of RM3
// (Abdul-Jaleel et al., TREC 2004; Anserini's default): the best chunks
// of a first BM25 pass are taken as relevant, a relevance model is built
// from their terms (each chunk's term distribution, weighted by its share
// of the pass's score), and the model's best terms join the query at a
// lower weight than the query's own. Unlike plain RM3, candidates are
// chosen by the model's weight times idf: without idf the model's best
// terms are the collection's commonest words, which add little but the
// cost of decoding their long posting lists.

// Expansion tunes query expansion. The zero value of every field means
// its default.
type Expansion struct {
	// Chunks is how many of the first pass's best chunks feed the model.
	Chunks int
	// Terms is how many terms are added to the query.
	Terms int
	// Weight is the added terms' weight, all together, as a share of the
	// query's own terms': 0.5 makes the expansion count half as much as
	// what the person typed.
	Weight float64
}

// DefaultExpansion holds the values zero fields of Expansion take, chosen
// on SciFact's training queries (TestSciFactExpansion, BENCHMARKS.md).
var DefaultExpansion = Expansion{Chunks: 3, Terms: 20, Weight: 0.1}

// WithDefaults fills e's zero fields from DefaultExpansion.
func (e Expansion) WithDefaults() Expansion {
	if e.Chunks <= 0 {
		e.Chunks = DefaultExpansion.Chunks
	}
	if e.Terms <= 0 {
		e.Terms = DefaultExpansion.Terms
	}
	if e.Weight <= 0 {
		e.Weight = DefaultExpansion.Weight
	}
	return e
}

// FeedbackIndex is what expansion reads besides the first pass's scores.
type FeedbackIndex interface {
	// ChunkTerms calls fn for each term of a chunk with its weighted
	// frequency there (store.Tx's).
	ChunkTerms(chunk uint64, fn func(term string, freq uint32)) error
	// DocFreq is how many chunks hold term. It is asked of every term of
	// the chunks fed back, so it must not read postings: memory answers
	// from the term dictionary (Dictionary.DocFreq), where counting a
	// term's postings made expansion ten times as slow.
	DocFreq(term string) int
}

// Expand returns q with the best terms of the relevance model of the best
// e.Chunks of first (the first pass's scores, reordered) added at e.Weight.
// It returns q itself when the pass found nothing worth feeding back.
func (e Expansion) Expand(ix FeedbackIndex, c Corpus, q Query, first []Scored) (Query, error) {
	top := Top(first, min(e.Chunks, len(first)))
	model, err := relevanceModel(ix, q, top)
	if err != nil || len(model) == 0 {
		return q, err
	}
	picked := e.pick(ix, c, model)
	var total, own float64
	for _, t := range picked {
		total += t.prob
	}
	for _, w := range q.Weights {
		own += w
	}
	if total == 0 {
		return q, nil
	}
	out := Query{Terms: slices.Clone(q.Terms), Weights: make(map[string]float64, len(q.Terms)+len(picked))}
	for term, w := range q.Weights {
		out.Weights[term] = w
	}
	for _, t := range picked {
		out.add(t.term, e.Weight*own*t.prob/total)
	}
	return out, nil
}

// candidate is a term the relevance model offers: its probability under
// the model and what it is picked by.
type candidate struct {
	term        string
	prob, merit float64
}

// relevanceModel is P(term | relevant) over top, for terms not in q:
// each chunk's term distribution weighted by the chunk's share of top's
// score.
func relevanceModel(ix FeedbackIndex, q Query, top []Scored) (map[string]float64, error) {
	var sum float64
	for _, s := range top {
		sum += s.Score
	}
	if sum <= 0 {
		return nil, nil
	}
	model := map[string]float64{}
	type tf struct {
		term string
		freq uint32
	}
	var terms []tf
	for _, s := range top {
		terms = terms[:0]
		var length float64
		err := ix.ChunkTerms(s.Chunk, func(term string, freq uint32) {
			terms = append(terms, tf{term, freq})
			length += float64(freq)
		})
		if err != nil {
			return nil, err
		}
		if length == 0 {
			continue
		}
		share := s.Score / sum
		for _, t := range terms {
			if _, ok := q.Weights[t.term]; !ok && !isQuestionWord(t.term) {
				model[t.term] += share * float64(t.freq) / length
			}
		}
	}
	return model, nil
}

// pick chooses e.Terms terms of model by probability times idf. A term
// held by one chunk only is left out: it can only find again the chunk it
// came from.
func (e Expansion) pick(ix FeedbackIndex, c Corpus, model map[string]float64) []candidate {
	n := float64(c.Chunks)
	cands := make([]candidate, 0, len(model))
	for term, p := range model {
		df := float64(ix.DocFreq(term))
		if df < 2 {
			continue
		}
		cands = append(cands, candidate{term: term, prob: p, merit: p * math.Log(1+(n-df+0.5)/(df+0.5))})
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.merit > b.merit:
			return -1
		case a.merit < b.merit:
			return 1
		}
		return strings.Compare(a.term, b.term)
	})
	return cands[:min(len(cands), e.Terms)]
}
