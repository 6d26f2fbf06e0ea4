package pipeline

import (
	"strings"
	"time"
	"unicode"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// boilerplateNotes is how many notes of a folder must hold a block,
// verbatim, for it to be template boilerplate (a footer, a badge line, a
// query block): shown with its note, never ranked. Ten is past where a
// person pastes the same passage by hand: of the Dendron vault's 12,567
// distinct blocks (headings aside), 11,854 are in one note and 608 in two
// or three, while the 18 in ten or more are "{{fm.desc}}", a newsletter's
// fixed paragraphs and a reference page's "- required: `false`" lines.
// A share of the folder is no part of the rule: a template's block is as
// much boilerplate in a vault of 6,000 notes as of 60, and a rule that
// moved with the folder's size would re-weight notes as the folder grows.
const boilerplateNotes = 10

// boilerplateVersion names the boilerplate rule; a store whose notes were
// weighted under another is re-indexed (which also records the block
// holders of a store made before them).
const boilerplateVersion = 1

// mayBeBoilerplate reports whether a block of kind k is counted across
// notes (store.Note.Blocks). Headings are not: a template's section
// heading names the note's own text under it, its words are that
// chunk's title, and the Dendron vault's 85 headings in 10 or more notes
// would each re-weight notes as a folder is first indexed; a chunk whose
// other blocks are all boilerplate is not ranked, its headings with it.
// Front matter and thematic breaks hold no text that is ranked.
func mayBeBoilerplate(k parse.Kind) bool {
	return k != parse.Heading && k != parse.FrontMatter && k != parse.ThematicBreak
}

// boilerplate is the set of a note's block ids that were boilerplate when
// its chunks' terms were counted; nil when none were.
type boilerplate map[string]bool

// storedBoilerplate is the boilerplate of blocks (a note's ids) of folder
// as stored in tx.
func storedBoilerplate(tx *store.Tx, folder string, blocks []string) (boilerplate, error) {
	counts, err := tx.BlockHoldersOf(folder, blocks)
	if err != nil {
		return nil, err
	}
	var out boilerplate
	for i, n := range counts {
		if n >= boilerplateNotes {
			if out == nil {
				out = boilerplate{}
			}
			out[blocks[i]] = true
		}
	}
	return out, nil
}

// matches reports whether b is the boilerplate of blocks of folder as
// stored in tx now.
func (b boilerplate) matches(tx *store.Tx, folder string, blocks []string) (bool, error) {
	counts, err := tx.BlockHoldersOf(folder, blocks)
	if err != nil {
		return false, err
	}
	for i, n := range counts {
		if (n >= boilerplateNotes) != b[blocks[i]] {
			return false, nil
		}
	}
	return true, nil
}

// batchBoilerplate sets the boilerplate of each note outs will write with
// new chunks, as it will be once the batch commits: the stored counts, less
// the stored notes the batch rewrites or removes, plus the batch's own
// notes. A folder's first index thus finds its templates in the batch
// that brings them, instead of re-indexing the notes before.
func batchBoilerplate(tx *store.Tx, outs []outcome) error {
	folders := map[string]*blockTally{}
	// A folder's first tally is sized for every block the batch writes
	// (most batches are one folder's) rather than grown to it.
	size := 0
	for i := range outs {
		if o := &outs[i]; o.kind == outPut || o.kind == outMove {
			size += len(o.note.Blocks)
		}
	}
	add := func(folder string, ids []string, delta int) {
		f := folders[folder]
		if f == nil {
			f = &blockTally{at: make(map[string]int32, size), ids: make([]string, 0, size), counts: make([]int, 0, size)}
			size = 0
			folders[folder] = f
		}
		f.add(ids, delta)
	}
	for i := range outs {
		o := &outs[i]
		var gone []string
		switch o.kind {
		case outMove:
			gone = append(gone, o.from)
			fallthrough
		case outPut:
			add(o.note.Folder, o.note.Blocks, +1)
			fallthrough
		case outRemove, outSkip:
			gone = append(gone, o.job.Path)
		}
		for _, path := range gone {
			n, err := tx.LookupNote(path)
			if err != nil {
				return err
			}
			if n != nil {
				add(n.Folder, n.Blocks, -1)
			}
		}
	}
	for folder, f := range folders {
		stored, err := tx.BlockHoldersOf(folder, f.ids)
		if err != nil {
			return err
		}
		for i, n := range stored {
			f.counts[i] += n
		}
	}
	for i := range outs {
		o := &outs[i]
		if o.kind != outPut || o.parsed == nil {
			continue
		}
		f := folders[o.note.Folder]
		for _, id := range o.note.Blocks {
			if f.counts[f.at[id]] >= boilerplateNotes {
				if o.boiler == nil {
					o.boiler = boilerplate{}
				}
				o.boiler[id] = true
			}
		}
	}
	return nil
}

// blockTally is what batchBoilerplate counts of one folder's blocks: each
// block's place in ids and counts, so that a block costs one map
// operation where it is counted and one where it is read (a map of counts
// by id cost four, a third of a 100k-note add's foresight).
type blockTally struct {
	at     map[string]int32
	ids    []string
	counts []int
}

func (f *blockTally) add(ids []string, delta int) {
	for _, id := range ids {
		i, ok := f.at[id]
		if !ok {
			i = int32(len(f.ids))
			f.at[id] = i
			f.ids = append(f.ids, id)
			f.counts = append(f.counts, 0)
		}
		f.counts[i] += delta
	}
}

// boilerplateSettle is what a write transaction must check of boilerplate
// before it commits: the notes it wrote with new chunks, by path, with the
// boilerplate they were weighted with, and notes it moved to another
// folder (weighted under the old one's).
type boilerplateSettle struct {
	written  map[string]writtenNote
	moved    []string
	requeued int // notes settle queued again
}

type writtenNote struct {
	folder string
	blocks []string
	boiler boilerplate
}

func (s *boilerplateSettle) wrote(n *store.Note, b boilerplate) {
	if s.written == nil {
		s.written = map[string]writtenNote{}
	}
	s.written[n.Path] = writtenNote{n.Folder, n.Blocks, b}
}

// settle re-queues, at the end of a write transaction, every note whose
// chunks were weighted with boilerplate that is no longer true: the holders
// of a block the transaction made boilerplate or ordinary (but those it
// wrote weighted right), the notes it moved to another folder and, unless
// exact, the notes it wrote whose boilerplate was foreseen otherwise.
// exact says the transaction wrote a whole batch as batchBoilerplate
// foresaw it: then no written note can be wrong but for a crossing. A
// re-queued note is marked as Reindex marks one, in this transaction, so
// the re-weighting survives a crash.
func (s *boilerplateSettle) settle(tx *store.Tx, exact bool) error {
	crossings, err := tx.BlockCrossings(boilerplateNotes)
	if err != nil {
		return err
	}
	crossed := map[string]map[string]bool{} // folder → block id → boilerplate now
	for _, c := range crossings {
		if crossed[c.Folder] == nil {
			crossed[c.Folder] = map[string]bool{}
		}
		crossed[c.Folder][c.ID] = c.After >= boilerplateNotes
	}
	redo := map[string]bool{}
	for folder, ids := range crossed {
		if err := s.holders(tx, folder, ids, redo); err != nil {
			return err
		}
	}
	if !exact {
		for path, w := range s.written {
			same, err := w.boiler.matches(tx, w.folder, w.blocks)
			if err != nil {
				return err
			}
			if !same {
				redo[path] = true
			}
		}
	}
	for _, path := range s.moved {
		redo[path] = true
	}
	for path := range redo {
		if err := requeue(tx, path); err != nil {
			return err
		}
	}
	s.requeued = len(redo)
	return nil
}

// holders adds to redo the notes of folder weighted otherwise than ids
// (block id → boilerplate now) say: those holding one of them, but for
// notes written in this transaction with it weighted as it is now. It
// reads the folder's note records: a block crosses the threshold seldom
// (as a folder is first indexed, then when a template changes), and the
// records list each note's blocks, where an index of holders would cost a
// bbolt write for every block of every note; only their folder and blocks
// are read (ForEachNoteBlocks). A note written in this
// transaction is judged by what it wrote, without decoding its record:
// on a first index that is every note (3% of indexing the Dendron vault).
func (s *boilerplateSettle) holders(tx *store.Tx, folder string, ids map[string]bool, redo map[string]bool) error {
	unwritten := func(path []byte) bool {
		w, written := s.written[string(path)]
		if !written {
			return true
		}
		if w.folder == folder && w.weighedOtherwise(ids) {
			redo[string(path)] = true
		}
		return false
	}
	return tx.ForEachNoteBlocks(dirPrefix(folder), unwritten, func(path, of []byte, blocks [][]byte) error {
		if string(of) != folder {
			return nil
		}
		for _, id := range blocks {
			if _, ok := ids[string(id)]; ok {
				redo[string(path)] = true
				return nil
			}
		}
		return nil
	})
}

// weighedOtherwise reports whether w holds a block of ids (block id →
// boilerplate now) that it was weighted with otherwise.
func (w writtenNote) weighedOtherwise(ids map[string]bool) bool {
	for _, id := range w.blocks {
		if now, ok := ids[id]; ok && w.boiler[id] != now {
			return true
		}
	}
	return false
}

// requeue marks the stored note at path for a forced re-index and queues
// it, as Reindex does.
func requeue(tx *store.Tx, path string) error {
	n, err := tx.LookupNote(path)
	if n == nil || err != nil {
		return err
	}
	if err := tx.TouchNote(n, -1, time.Time{}); err != nil {
		return err
	}
	return tx.EnqueueJob(path, n.Folder)
}

// chunkBoilerplate returns the line spans of c's boilerplate blocks, which
// its ranked text leaves out (nil: none), and whether a block with a word
// is left that is neither boilerplate nor a heading.
func chunkBoilerplate(pn *parse.Note, c *chunk.Chunk, boiler boilerplate) (cut [][2]int, own bool) {
	for i := c.FirstBlock; i <= c.LastBlock && i < len(pn.Blocks); i++ {
		switch b := &pn.Blocks[i]; {
		case boiler[b.ID]:
			cut = append(cut, [2]int{b.StartLine, b.EndLine})
		case b.Kind != parse.Heading && !own:
			own = hasWord(b.Text)
		}
	}
	return cut, own || cut == nil
}

// appendBody appends to dst the ranked text of a chunk whose text starts
// at line start: its lines outside the spans cut, joined by "\n".
func appendBody(dst []byte, text string, start int, cut [][2]int) []byte {
	n := len(dst)
	line := start
	for l := range strings.SplitSeq(text, "\n") {
		if !inSpans(line, cut) {
			if len(dst) > n {
				dst = append(dst, '\n')
			}
			dst = append(dst, l...)
		}
		line++
	}
	return dst
}

func inSpans(line int, spans [][2]int) bool {
	for _, s := range spans {
		if line >= s[0] && line <= s[1] {
			return true
		}
	}
	return false
}

// rankedBody is how a chunk's terms are counted: whether it is ranked at
// all, and the line spans its ranked text leaves out of its text.
type rankedBody struct {
	cut    [][2]int
	ranked bool
}

// rankedBodies returns how each chunk's body is ranked, or nil when boiler is
// empty and every chunk is ranked on its whole text. A chunk that
// boilerplate leaves without a word outside its headings is stored and
// shown but never ranked, not even by its headings and titles, unless no
// chunk of the note is ranked: then the first keeps its titles and
// fields, so a note that is all template is still found by its name.
func rankedBodies(pn *parse.Note, cs []chunk.Chunk, boiler boilerplate) []rankedBody {
	if len(boiler) == 0 {
		return nil
	}
	out := make([]rankedBody, len(cs))
	anyRanked := false
	for i := range cs {
		cut, own := chunkBoilerplate(pn, &cs[i], boiler)
		out[i] = rankedBody{cut, own}
		anyRanked = anyRanked || own
	}
	if !anyRanked && len(out) > 0 {
		out[0].ranked = true
	}
	return out
}

// hasWord reports whether s has a letter or digit: text the analyzer makes
// a term of, but for a few stop words.
func hasWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
