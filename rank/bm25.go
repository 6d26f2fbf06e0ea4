package memory

import (
	"math"
	"slices"
	"sync"

	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/store/lexical"
)

// BM25 parameters. k1 0.9 and b 0.4 are the values of the BM25 baselines
// SciFact reports against (Anserini); title weighting happens at index time.
type BM25 struct {
	K1 float64
	B  float64
}

// DefaultBM25 is what Recall uses when the service's config leaves it zero.
var DefaultBM25 = BM25{K1: 0.9, B: 0.4}

// scored is one chunk and its lexical score.
type scored struct {
	chunk uint64
	score float64
}

// scoreBoard accumulates per-chunk scores in a dense array indexed by chunk
// id, which beats a map by several times at 100k chunks; boards are pooled.
type scoreBoard struct {
	scores  []float64
	touched []uint64
}

var boards = sync.Pool{New: func() any { return &scoreBoard{} }}

func (b *scoreBoard) reset(maxID uint64) {
	for _, id := range b.touched {
		b.scores[id] = 0
	}
	b.touched = b.touched[:0]
	if uint64(len(b.scores)) <= maxID {
		b.scores = make([]float64, maxID+1+maxID/4)
	}
}

func (b *scoreBoard) add(id uint64, s float64) {
	if b.scores[id] == 0 {
		b.touched = append(b.touched, id)
	}
	b.scores[id] += s
}

// queryTerms analyzes a query into unique terms with their counts, in first
// occurrence order.
func queryTerms(q string) ([]string, map[string]int) {
	terms := lexical.Terms(q)
	if kept := slices.DeleteFunc(slices.Clone(terms), isQuestionWord); len(kept) > 0 {
		terms = kept
	}
	counts := map[string]int{}
	var order []string
	for _, t := range terms {
		if counts[t] == 0 {
			order = append(order, t)
		}
		counts[t]++
	}
	return order, counts
}

// questionWords are the analyzed forms of the words that frame a question
// ("how do I …", "what did we …"). They are not stop words in the index,
// but in a query they only pull in notes full of questions (a Q&A log
// outranks the page that answers), so a query drops them unless they are
// all it has.
var questionWords = map[string]bool{
	"how": true, "do": true, "doe": true, "did": true, "i": true, "what": true, "why": true,
	"when": true, "where": true, "which": true, "who": true, "can": true, "should": true,
	"my": true, "me": true, "we": true, "our": true, "you": true, "your": true,
}

func isQuestionWord(t string) bool { return questionWords[t] }

// rank scores every chunk holding a query term, in no particular order.
func (p BM25) rank(tx *store.Tx, terms []string, qtf map[string]int) ([]scored, error) {
	counts := tx.Counts()
	if counts.Chunks == 0 || len(terms) == 0 {
		return nil, nil
	}
	n := float64(counts.Chunks)
	avgdl := float64(counts.Length) / n
	if avgdl == 0 {
		avgdl = 1
	}
	board := boards.Get().(*scoreBoard)
	defer boards.Put(board)
	board.reset(tx.MaxChunkID())
	var buf []store.Posting
	for _, term := range terms {
		var err error
		buf, err = tx.Postings(term, buf[:0])
		if err != nil {
			return nil, err
		}
		if len(buf) == 0 {
			continue
		}
		df := float64(len(buf))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		w := idf * float64(qtf[term])
		for _, post := range buf {
			if post.Chunk >= uint64(len(board.scores)) {
				continue
			}
			tf := float64(post.Freq)
			norm := p.K1 * (1 - p.B + p.B*float64(post.Length)/avgdl)
			board.add(post.Chunk, w*tf*(p.K1+1)/(tf+norm))
		}
	}
	out := make([]scored, len(board.touched))
	for i, id := range board.touched {
		out[i] = scored{chunk: id, score: board.scores[id]}
	}
	return out, nil
}
