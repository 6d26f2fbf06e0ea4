package lexical

// Counter counts the terms of the texts of one unit, such as a chunk's body
// and title fields, with the same analysis as Terms. It counts by term id
// (an array increment) where a map of strings costs a hash and a compare
// per term, which was a third of indexing's analysis time. Its zero value
// is ready to use; it is not safe for concurrent use.
type Counter struct {
	an Analyzer
	// numbering counts the times the term ids were dropped (Numbering).
	numbering int
	freq      []uint32 // by term id; zero for ids not in seen
	seen      []uint32 // ids counted since Reset, in first-seen order
	weight    uint32
}

// counterWords is how many words a Counter's table holds before it first
// grows: a Counter counts many texts (a batch of notes), whose vocabulary
// went through four doublings of the table and of the term ids' map one at
// a time, 4% of indexing SciFact.
const counterWords = 1 << 14

// Add counts every term of text weight times. The Counter keeps no part of
// text: its memory may be reused once Add returns.
func (c *Counter) Add(text string, weight uint32) {
	if weight == 0 {
		return
	}
	if c.an.ids == nil {
		c.an.reserve(counterWords)
	}
	c.an.counter, c.weight = c, weight
	c.an.scan(text)
	c.an.counter = nil
}

func (c *Counter) add(id uint32) {
	if int(id) >= len(c.freq) {
		c.freq = append(c.freq, make([]uint32, max(int(id)+1, len(c.an.terms))-len(c.freq))...)
	}
	if c.freq[id] == 0 {
		c.seen = append(c.seen, id)
	}
	c.freq[id] += c.weight
}

// Len is the number of distinct terms counted since Reset.
func (c *Counter) Len() int { return len(c.seen) }

// Each calls f with every term counted since Reset, its number and its
// count, in the order the terms were first seen. A term's number is the
// Counter's own id for it, dense from 0, the same in every unit until
// Numbering changes.
func (c *Counter) Each(f func(num uint32, term string, freq uint32)) {
	for _, id := range c.seen {
		f(id, c.an.terms[id], c.freq[id])
	}
}

// Numbering counts the times the Counter dropped its term numbers (its
// table past maxTableWords, at a Reset): a number from before means
// another term after.
func (c *Counter) Numbering() int { return c.numbering }

// Reset clears the counts for the next unit.
func (c *Counter) Reset() {
	for _, id := range c.seen {
		c.freq[id] = 0
	}
	c.seen = c.seen[:0]
	if c.an.words.words > maxTableWords {
		c.an.forget()
		c.numbering++
	}
}
