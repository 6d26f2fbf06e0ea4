package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// Skip reasons that callers may match.
const (
	ReasonForgotten = "forgotten"
	// ReasonSymlink is why a linked note is not indexed: links are not
	// followed (a loop cannot trap a scan, and no note is indexed twice).
	ReasonSymlink = "a symlink: memd does not follow links; register the folder where the note really is"
	reasonBinary  = "binary file, not text"
	reasonNotUTF8 = "not valid UTF-8 text (save it as UTF-8 to index it)"
)

type outcomeKind int

const (
	outDone    outcomeKind = iota // nothing to write: unchanged, or kept out
	outRemove                     // the file is gone or no longer a note
	outSkip                       // not indexed, for reason
	outRefresh                    // same content: store the new size and mtime
	outMove                       // same content as a note whose file is gone: a rename
	outPut                        // index note with chunks
	outRetry                      // a transient error: try again later
)

// outcome is what one job comes to, computed outside the write transaction.
type outcome struct {
	job    store.Job
	kind   outcomeKind
	note   *store.Note
	chunks []store.NewChunk
	from   string // outMove: the old path
	reason string // outSkip, outRetry
	size   int64

	// Set for outPut when model stages are configured; the stages replace
	// chunks and fill vectors (by chunk ordinal, nil entries for none).
	parsed   *parse.Note
	vectors  [][]float32
	vectorFP string
	staged   time.Time // when the model stages began, without writeMu

	retried, indexed bool // set by apply
}

// preparer computes outcomes on one goroutine, with its own analyzer.
type preparer struct {
	ix    *Indexer
	skips map[string]store.Skip
	terms termCounter
}

func (p *preparer) prepare(j store.Job) outcome {
	o := outcome{job: j}
	rules, ok := p.ix.rulesFor(j.Folder)
	if !ok {
		return o // folder removed; apply finishes the job
	}
	fi, err := os.Lstat(j.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p.gone(o)
	case err != nil:
		return retry(o, err)
	case rules.ignored(j.Path, false) || !isNoteName(j.Path):
		o.kind = outRemove
		return o
	case fi.Mode()&fs.ModeSymlink != 0:
		return skipFor(o, ReasonSymlink)
	case !fi.Mode().IsRegular():
		o.kind = outRemove
		return o
	}
	stat := fileStat{size: fi.Size(), mtime: fi.ModTime()}
	o.size = stat.size
	skip, skipped := p.skips[j.Path]
	if skipped && skip.Reason == ReasonForgotten && unchangedSince(stat, skip) {
		return o
	}
	max := p.ix.cfg.MaxFileBytes
	if stat.size > max {
		return tooBig(o, stat.size, max)
	}
	content, err := readLimited(j.Path, stat.size, max)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p.gone(o)
	case errors.Is(err, errTooBig):
		return tooBig(o, max+1, max)
	case err != nil:
		return retry(o, err)
	}
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])

	stored, moveFrom, err := p.lookup(j.Path, hash)
	if err != nil {
		return retry(o, err)
	}
	if stored != nil && stored.Hash == hash && stored.Size >= 0 {
		if stored.Size == stat.size && stored.ModTime.Equal(stat.mtime) && !skipped {
			return o
		}
		n := *stored
		n.Size, n.ModTime = stat.size, stat.mtime
		o.kind, o.note = outRefresh, &n
		return o
	}

	pn, err := parse.Parse(j.Path, content)
	switch {
	case errors.Is(err, parse.ErrBinary):
		return skipFor(o, reasonBinary)
	case errors.Is(err, parse.ErrNotUTF8):
		return skipFor(o, reasonNotUTF8)
	case err != nil:
		return skipFor(o, "could not parse: "+err.Error())
	}
	n := &store.Note{
		Path: j.Path, Folder: j.Folder, Size: stat.size, ModTime: stat.mtime, Hash: hash,
		Title: pn.Title, Aliases: pn.Aliases, Tags: pn.Tags, Links: pn.Links, Summary: leadSummary(pn),
		Chunker: ChunkerHeuristic, IndexedAt: time.Now().UTC(),
	}
	for _, b := range pn.Blocks {
		n.Blocks = append(n.Blocks, b.ID)
	}
	if moveFrom != nil {
		n.Chunker = moveFrom.Chunker
		o.kind, o.note, o.from = outMove, n, moveFrom.Path
		return o
	}
	o.kind, o.note = outPut, n
	if !p.ix.chunkOn {
		o.chunks = p.chunks(pn) // else the chunk stage cuts the note
	}
	if p.ix.staged() {
		o.parsed = pn
	}
	return o
}

// gone is the outcome for a path with no file: a removal, unless the whole
// folder is missing (an unmounted drive, say), whose notes are kept.
func (p *preparer) gone(o outcome) outcome {
	if !dirExists(o.job.Folder) {
		return o
	}
	o.kind = outRemove
	return o
}

// lookup returns the note stored at path and, when its content differs, a
// stored note with the same content whose file is gone (the path it was
// renamed from). Notes marked for a forced re-index are never moved.
func (p *preparer) lookup(path, hash string) (stored, moveFrom *store.Note, err error) {
	var candidates []*store.Note
	err = p.ix.db.View(func(tx *store.Tx) error {
		var err error
		if stored, err = tx.LookupNote(path); err != nil {
			return err
		}
		if stored != nil && stored.Hash == hash {
			return nil
		}
		for _, other := range tx.NotesWithHash(hash) {
			if other == path {
				continue
			}
			if n, _ := tx.LookupNote(other); n != nil && n.Size >= 0 {
				candidates = append(candidates, n)
			}
		}
		return nil
	})
	for _, c := range candidates {
		if _, err := os.Lstat(c.Path); errors.Is(err, fs.ErrNotExist) {
			return stored, c, nil
		}
	}
	return stored, nil, err
}

// chunks cuts a parsed note with the heuristic and computes each chunk's
// terms.
func (p *preparer) chunks(pn *parse.Note) []store.NewChunk {
	return newChunks(pn, chunk.Heuristic(pn, p.ix.cfg.Chunk), &p.terms, p.ix.cfg)
}

// newChunks turns chunks of pn into chunks to store, with their terms.
func newChunks(pn *parse.Note, cs []chunk.Chunk, terms *termCounter, cfg Config) []store.NewChunk {
	out := make([]store.NewChunk, len(cs))
	fields := noteFields(pn, cfg)
	for i, c := range cs {
		title := c.Title
		if title == "" {
			title = pn.Title
		}
		out[i] = store.NewChunk{Chunk: store.Chunk{
			StartLine: c.StartLine, EndLine: c.EndLine, Heading: c.Heading, Title: title, Text: c.Text,
		}}
		out[i].Terms = terms.count(c.Text, titleFields(pn.Title, c.Title, c.Heading), cfg.TitleWeight, fields)
	}
	return out
}

var errTooBig = errors.New("file grew over the size limit")

// readLimited reads the file at path, failing with errTooBig past max bytes.
func readLimited(path string, size, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the stat (plus the room ReadFrom wants free), so a note
	// is one allocation rather than io.ReadAll's doublings; one byte past
	// max shows the file grew.
	var buf bytes.Buffer
	buf.Grow(int(min(size, max)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, errTooBig
	}
	return buf.Bytes(), nil
}

func retry(o outcome, err error) outcome {
	o.kind, o.reason = outRetry, "could not read: "+err.Error()
	return o
}

func skipFor(o outcome, reason string) outcome {
	o.kind, o.reason = outSkip, reason
	return o
}

func tooBig(o outcome, size, max int64) outcome {
	return skipFor(o, fmt.Sprintf("file is %s, over the %s limit (set max_file_bytes to index it)",
		formatBytes(size), formatBytes(max)))
}

// formatBytes writes a size as a person reads it: "52 MB", "4 MB", "980 KB".
func formatBytes(n int64) string {
	const kb, mb = 1 << 10, 1 << 20
	switch {
	case n >= 10*mb:
		return fmt.Sprintf("%d MB", (n+mb/2)/mb)
	case n >= mb:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/mb)) + " MB"
	case n >= kb:
		return fmt.Sprintf("%d KB", (n+kb/2)/kb)
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
