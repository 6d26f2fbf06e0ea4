package parse

import (
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// rawBlock is a block as a format parser finds it: 0-based inclusive lines.
type rawBlock struct {
	kind       Kind
	level      int
	start, end int
	lang       string
	title      string // heading text, for Heading blocks
}

// splitLines splits on "\n" and drops a trailing "\r", so Windows files get
// the same lines (and block ids) as Unix ones. A final newline does not
// start another line. offs holds each line's byte offset in s. Both are
// appended to the slices given.
func splitLines(s string, lines []string, offs []int) ([]string, []int) {
	n := strings.Count(s, "\n") + 1
	lines, offs = slices.Grow(lines, n), slices.Grow(offs, n)
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], '\n')
		end := len(s)
		if i >= 0 {
			end = off + i
		}
		lines = append(lines, strings.TrimSuffix(s[off:end], "\r"))
		offs = append(offs, off)
		off = end + 1
	}
	return lines, offs
}

// finish turns raw blocks into Blocks: text, 1-based lines, heading paths
// and ids. Lines are substrings of src but for those in cut (sorted), so a
// block without "\r" or a cut line takes its text from src without
// copying. seen counts the note's block hashes (blockID).
func finish(src string, lines []string, offs []int, cut []int, raws []rawBlock, seen *repeats) []Block {
	blocks := make([]Block, len(raws))
	var stack []headingEntry
	var path []string // shared snapshot of stack, rebuilt when it changes
	for i, r := range raws {
		b := &blocks[i]
		b.Index, b.Kind, b.Level, b.Lang, b.Title = i, r.kind, r.level, r.lang, r.title
		b.StartLine, b.EndLine = r.start+1, r.end+1
		for len(cut) > 0 && cut[0] < r.start {
			cut = cut[1:]
		}
		b.Text = spanText(src, lines, offs, r.start, r.end, len(cut) > 0 && cut[0] <= r.end)
		b.Heading = path
		if r.kind == Heading {
			for len(stack) > 0 && stack[len(stack)-1].level >= r.level {
				stack = stack[:len(stack)-1]
			}
			b.Heading = snapshot(stack)
			stack = append(stack, headingEntry{r.level, r.title})
			path = snapshot(stack)
		}
		b.ID = blockID(b.Kind, b.Text, seen)
	}
	return blocks
}

// spanText is the text of lines [start, end] (0-based): a slice of src
// when the span has no cut line and no "\r" to drop, else the lines
// joined.
func spanText(src string, lines []string, offs []int, start, end int, cut bool) string {
	if cut {
		return strings.Join(lines[start:end+1], "\n")
	}
	t := src[offs[start] : offs[end]+len(lines[end])]
	if start == end || strings.IndexByte(t, '\r') < 0 {
		return t
	}
	return strings.Join(lines[start:end+1], "\n")
}

type headingEntry struct {
	level int
	title string
}

func snapshot(stack []headingEntry) []string {
	if len(stack) == 0 {
		return nil
	}
	p := make([]string, len(stack))
	for i, e := range stack {
		p[i] = e.title
	}
	return p
}

// blockID hashes the kind and the text with trailing spaces of each line
// removed (editors strip them unasked); an identical earlier block adds its
// count to the hash so repeats get distinct ids.
func blockID(k Kind, text string, seen *repeats) string {
	h := fnvAdd(fnvOffset, string(rune('a'+k)))
	for more := true; more; {
		var line string
		line, text, more = strings.Cut(text, "\n")
		for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
			line = line[:len(line)-1]
		}
		h = fnvAdd(h, line)
		h = fnvAdd(h, "\n")
	}
	if n := seen.count(h); n > 0 {
		h = fnvAdd(h, "#"+strconv.Itoa(n))
	}
	var b [8]byte
	var id [16]byte
	binary.BigEndian.PutUint64(b[:], h)
	hex.Encode(id[:], b[:])
	return string(id[:])
}

// repeats counts the block hashes of a note: in a list while the note has
// few blocks (most notes; a map each cost more than the scans), in a map
// past that. Its memory serves the next note after reset.
type repeats struct {
	list   []uint64
	seen   map[uint64]int
	mapped bool // counting in seen, not list
}

// reset forgets the counts, keeping the list's and the map's memory.
func (r *repeats) reset() {
	if r.mapped {
		clear(r.seen)
	}
	r.list, r.mapped = r.list[:0], false
}

const maxListedRepeats = 64

// count returns how many times h was counted before, and counts it.
func (r *repeats) count(h uint64) int {
	if !r.mapped && len(r.list) < maxListedRepeats {
		n := 0
		for _, x := range r.list {
			if x == h {
				n++
			}
		}
		r.list = append(r.list, h)
		return n
	}
	if !r.mapped {
		if r.seen == nil {
			r.seen = make(map[uint64]int, 2*len(r.list))
		}
		r.mapped = true
		for _, x := range r.list {
			r.seen[x]++
		}
	}
	n := r.seen[h]
	r.seen[h] = n + 1
	return n
}

const fnvOffset uint64 = 14695981039346656037

// fnvAdd continues a 64-bit FNV-1a hash over s.
func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// indentOf returns the width of the leading white space (a tab counts to
// the next multiple of 4) and the rest of the line.
func indentOf(l string) (int, string) {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, l[i:]
		}
	}
	return w, ""
}

func isBlank(l string) bool {
	for i := 0; i < len(l); i++ {
		if l[i] != ' ' && l[i] != '\t' {
			return false
		}
	}
	return true
}
