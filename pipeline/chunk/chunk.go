package chunk

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/memd-dev/memd/pipeline/parse"
)

// Options set the chunk sizes, in EstimateTokens tokens. The zero value
// gives the defaults.
type Options struct {
	TargetTokens int // the size chunks aim for; 0 means 350
	MaxTokens    int // the hard maximum; 0 means 800
	// MinTokens is the size below which a chunk is merged with a neighbour
	// when it can be; 0 means TargetTokens/4, negative means no minimum.
	MinTokens int
}

// Defaults for Options' zero fields.
const (
	DefaultTargetTokens = 350
	DefaultMaxTokens    = 800
)

func (o Options) withDefaults() Options {
	if o.TargetTokens <= 0 {
		o.TargetTokens = DefaultTargetTokens
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	o.TargetTokens = min(o.TargetTokens, o.MaxTokens)
	switch {
	case o.MinTokens == 0:
		o.MinTokens = o.TargetTokens / 4
	case o.MinTokens < 0:
		o.MinTokens = 0
	}
	o.MinTokens = min(o.MinTokens, o.TargetTokens)
	return o
}

// Chunk is a contiguous span of a note.
type Chunk struct {
	FirstBlock, LastBlock int // block Index range, inclusive
	StartLine, EndLine    int // 1-based, inclusive
	// Heading is the heading path the chunk's content lies under: the
	// longest common prefix of the paths of its non-heading blocks (of its
	// headings, themselves included, when it holds only headings). It may
	// share storage with the note's blocks: do not modify it.
	Heading []string
	Title   string // the last heading of Heading, else the note's title
	// Text is the source of the span: its lines as in the file, blank lines
	// kept, line endings "\n". A chunk that holds part of a block holds
	// those of its lines (or, for a single line over MaxTokens, those of its
	// characters) only.
	Text string
}

// Version names the heuristic chunker's rules. It is bumped whenever a
// change would cut some note differently, and the store re-indexes on a
// change. 2: the token estimate counts U+30FC (ー) as dense script.
const Version = 2

// Heuristic cuts a note into chunks. The chunks are in order and cover
// every block except front matter exactly once; a block is split across
// chunks only when it alone is over MaxTokens, and then at line boundaries
// (within a line only when that line alone is over MaxTokens). No chunk's
// Text estimates over MaxTokens. A note with no blocks beyond front matter
// has no chunks.
func Heuristic(n *parse.Note, o Options) []Chunk {
	var c Cutter
	return c.Heuristic(n, o)
}

// Cutter cuts notes as Heuristic does, keeping the memory it works in (the
// units, the dynamic program's arrays) from one note to the next, so a
// worker cutting many notes allocates only the chunks. The zero value is
// ready to use; a Cutter is not safe for concurrent use.
type Cutter struct {
	units []unit
	plan  plan
}

// Heuristic cuts n as the package's Heuristic does. The chunks share no
// memory with c.
func (c *Cutter) Heuristic(n *parse.Note, o Options) []Chunk {
	o = o.withDefaults()
	us := slices.Grow(c.units[:0], len(n.Blocks)) // a unit a block, unless one is over MaxTokens
	for i := range n.Blocks {
		if n.Blocks[i].Kind != parse.FrontMatter {
			us = appendUnits(us, &n.Blocks[i], 0, 1<<31-1, o)
		}
	}
	c.units = us
	chunks := assemble(n, us, c.plan.cut(us, o))
	clear(us) // the units point into n
	return chunks
}

// SplitOversize re-cuts c with the heuristic when its Text is over
// MaxTokens, for chunks another chunker chose; otherwise it returns c alone.
// The parts cover c's lines exactly, in order.
func SplitOversize(n *parse.Note, c Chunk, o Options) []Chunk {
	o = o.withDefaults()
	if EstimateTokens(c.Text) <= o.MaxTokens {
		return []Chunk{c}
	}
	var us []unit
	for i := max(c.FirstBlock, 0); i <= c.LastBlock && i < len(n.Blocks); i++ {
		if n.Blocks[i].Kind != parse.FrontMatter {
			us = appendUnits(us, &n.Blocks[i], c.StartLine, c.EndLine, o)
		}
	}
	if len(us) == 0 {
		return []Chunk{c}
	}
	var p plan
	return assemble(n, us, p.cut(us, o))
}

// Span builds the chunk of blocks first..last (Index, inclusive), whole, as
// a chunker that picks block ranges (the model) needs. It panics if the
// range is not within the note.
func Span(n *parse.Note, first, last int) Chunk {
	_ = n.Blocks[first]
	_ = n.Blocks[last]
	var us []unit
	for i := first; i <= last; i++ {
		b := &n.Blocks[i]
		us = append(us, unit{block: b, start: b.StartLine, end: b.EndLine, text: b.Text})
	}
	return build(n, us)
}

// assemble turns the break positions into chunks.
func assemble(n *parse.Note, us []unit, breaks []int) []Chunk {
	chunks := make([]Chunk, 0, len(breaks)+1)
	start := 0
	for _, b := range append(breaks, len(us)) {
		if b > start {
			chunks = append(chunks, build(n, us[start:b]))
		}
		start = b
	}
	return chunks
}

func build(n *parse.Note, us []unit) Chunk {
	first, last := us[0], us[len(us)-1]
	c := Chunk{
		FirstBlock: first.block.Index, LastBlock: last.block.Index,
		StartLine: first.start, EndLine: last.end,
	}
	c.Text = joinUnits(n.Source(), us)
	c.Heading = headingOf(us)
	c.Title = n.Title
	if len(c.Heading) > 0 {
		c.Title = c.Heading[len(c.Heading)-1]
	}
	return c
}

// joinUnits is the text of units: blank lines between them come back as
// empty lines, and pieces of one over-long line join with nothing between
// them. When that is a span of src, the note's source, it is that span,
// not a copy (sourceSpan); else the units are joined in one allocation.
func joinUnits(src string, us []unit) string {
	if s, ok := sourceSpan(src, us); ok {
		return s
	}
	n := 0
	for i, u := range us {
		if i > 0 {
			n += u.start - us[i-1].end
		}
		n += len(u.text)
	}
	var sb strings.Builder
	sb.Grow(n)
	for i, u := range us {
		if i > 0 {
			for range u.start - us[i-1].end {
				sb.WriteByte('\n')
			}
		}
		sb.WriteString(u.text)
	}
	return sb.String()
}

// sourceSpan returns the units' text as joinUnits joins them when src
// holds exactly that: each unit's text a substring of src, and between two
// units only the newlines joinUnits would put there. A unit starts at the
// start of a line or goes on with its unit's line, and ends a line or a
// piece of one, so src between two holds u.start - prev.end newlines and
// the lines between: that many bytes only when those lines are empty.
// Most chunks are such a span (blocks apart by empty lines, no comment cut
// out, no "\r"), and their text then costs no copy.
func sourceSpan(src string, us []unit) (string, bool) {
	start, ok := offsetIn(src, us[0].text)
	if !ok {
		return "", false
	}
	end := start + len(us[0].text)
	for i, u := range us[1:] {
		off, ok := offsetIn(src, u.text)
		if !ok || off-end != u.start-us[i].end {
			return "", false
		}
		end = off + len(u.text)
	}
	return src[start:end], true
}

// offsetIn is the offset of s in src when s is a non-empty substring of it
// (shares its memory), and false when it is not.
func offsetIn(src, s string) (int, bool) {
	if s == "" || len(s) > len(src) {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(src)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	if p < base || p-base > uintptr(len(src)-len(s)) {
		return 0, false
	}
	return int(p - base), true
}

// headingOf is the common heading path of the units' content blocks, or of
// their headings when there is no other content.
func headingOf(us []unit) []string {
	var path []string
	found := false
	for _, u := range us {
		if u.block.Kind == parse.Heading {
			continue
		}
		if !found {
			path, found = u.block.Heading, true
		} else {
			path = commonPrefix(path, u.block.Heading)
		}
	}
	if found {
		return path
	}
	path = pathOf(us[0].block)
	for _, u := range us[1:] {
		path = commonPrefix(path, pathOf(u.block))
	}
	return path
}

// pathOf is the heading path a block lies under, a heading counting itself.
func pathOf(b *parse.Block) []string {
	if b.Kind != parse.Heading {
		return b.Heading
	}
	p := make([]string, len(b.Heading)+1)
	copy(p, b.Heading)
	p[len(b.Heading)] = b.Title
	return p
}

func commonPrefix(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n:n]
}
