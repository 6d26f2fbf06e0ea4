package rank

import (
	"math"
	"slices"

	"github.com/memd-dev/memd/rank/lexical"
)

// BM25 parameters. k1 0.9 and b 0.4 are the values of the BM25 baselines
// SciFact reports against (Anserini); title weighting happens at index time.
type BM25 struct {
	K1 float64
	B  float64
}

// DefaultBM25 is what recall uses when the service's config leaves it zero.
var DefaultBM25 = BM25{K1: 0.9, B: 0.4}

// Scored is one chunk and a list's score for it.
type Scored struct {
	Chunk uint64
	Score float64
}

// Index is what BM25 reads of the lexical index; store.Tx is one.
type Index interface {
	// Postings appends every posting of term to dst, in chunk id order.
	Postings(term string, dst []Posting) ([]Posting, error)
	// MaxChunkID bounds the chunk ids postings hold.
	MaxChunkID() uint64
}

// Corpus is the collection statistics BM25 normalizes by.
type Corpus struct {
	Chunks int   // chunks indexed
	Length int64 // terms over all chunks
}

// scoreBoard accumulates per-chunk scores in a dense array indexed by chunk
// id, which beats a map by several times at 100k chunks; boards are kept
// for the next query (see spareBoards).
type scoreBoard struct {
	scores  []float64
	touched []uint64
	// postings is the buffer a term's postings are decoded into, kept with
	// the board: grown afresh for every query, it was half of recall's
	// garbage and so of the collections that made its slowest queries.
	postings []Posting
}

// spareBoards keeps boards between queries. Not a sync.Pool: a pool is
// emptied by every other collection, and the query after one allocated
// and faulted in a new board (1.25 MB at 100k chunks), which made most of
// recall's slowest 1%. One spare per query running at once is enough.
var spareBoards = make(chan *scoreBoard, 8)

func takeBoard() *scoreBoard {
	select {
	case b := <-spareBoards:
		return b
	default:
		return &scoreBoard{}
	}
}

func putBoard(b *scoreBoard) {
	select {
	case spareBoards <- b:
	default: // enough spares
	}
}

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

// Query is a query analyzed for BM25: its unique terms in first occurrence
// order, and the weight of each: how often it occurs, scaled down for a
// typo's correction.
type Query struct {
	Terms   []string
	Weights map[string]float64
}

// add counts term with weight w.
func (q *Query) add(term string, w float64) {
	if _, ok := q.Weights[term]; !ok {
		q.Terms = append(q.Terms, term)
	}
	q.Weights[term] += w
}

// ParseQuery analyzes q with the index's analyzer. Question words are
// dropped unless they are all it has.
func ParseQuery(q string) Query {
	terms := lexical.Terms(q)
	if kept := slices.DeleteFunc(slices.Clone(terms), isQuestionWord); len(kept) > 0 {
		terms = kept
	}
	out := Query{Weights: map[string]float64{}}
	for _, t := range terms {
		out.add(t, 1)
	}
	return out
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

// Rank scores every chunk holding a term of q, in no particular order,
// and says how many chunks hold each of q.Terms (what Typos.Correct
// reads).
func (p BM25) Rank(ix Index, c Corpus, q Query) ([]Scored, []int, error) {
	df := make([]int, len(q.Terms))
	if c.Chunks == 0 || len(q.Terms) == 0 {
		return nil, df, nil
	}
	n := float64(c.Chunks)
	avgdl := float64(c.Length) / n
	if avgdl == 0 {
		avgdl = 1
	}
	board := takeBoard()
	defer putBoard(board)
	board.reset(ix.MaxChunkID())
	buf := board.postings
	defer func() { board.postings = buf[:0] }()
	for i, term := range q.Terms {
		var err error
		buf, err = ix.Postings(term, buf[:0])
		if err != nil {
			return nil, df, err
		}
		if df[i] = len(buf); len(buf) == 0 {
			continue
		}
		df := float64(len(buf))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		w := idf * q.Weights[term]
		for _, post := range buf {
			if post.Chunk >= uint64(len(board.scores)) {
				continue
			}
			tf := float64(post.Freq)
			norm := p.K1 * (1 - p.B + p.B*float64(post.Length)/avgdl)
			board.add(post.Chunk, w*tf*(p.K1+1)/(tf+norm))
		}
	}
	out := make([]Scored, len(board.touched))
	for i, id := range board.touched {
		out[i] = Scored{Chunk: id, Score: board.scores[id]}
	}
	return out, df, nil
}
