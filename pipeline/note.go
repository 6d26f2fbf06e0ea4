package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
	"golang.org/x/sys/unix"
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

	// enrich: outPut queues the note for the model stages (phase two).
	enrich bool
	// parsed is the parsed note until its chunks are made: by finish in a
	// batch, by the model stages in enrichment. The model stages replace
	// chunks and fill vectors (by chunk ordinal, nil entries for none).
	parsed   *parse.Note
	vectors  [][]float32
	vectorFP string
	// boiler is the note's boilerplate its chunks' terms leave out.
	boiler boilerplate

	retried, indexed bool // set by apply
}

// preparer computes outcomes on one goroutine, with its own analyzer.
type preparer struct {
	w      *batchWorker
	skips  map[string]store.Skip
	parser parse.Parser
	cutter chunk.Cutter
	terms  termCounter
	dirs   dirOpener // closed when a batch's preparing ends
	tx     *store.Tx // the read transaction of a batch's preparing, or nil
}

// noteFile is a note's file as read for one job.
type noteFile struct {
	stat    fileStat
	content []byte
	hash    string // hex SHA-256 of content
}

// prepare reads the job's file, compares it with the stored note and, when
// its content is new, parses it into the note to write.
func (p *preparer) prepare(j store.Job) outcome {
	o := outcome{job: j}
	rules, ok := p.w.folders.rules(j.Folder)
	if !ok {
		return o // folder removed; apply finishes the job
	}
	f, decided := p.read(&o, rules)
	if decided {
		return o
	}
	stored, moveFrom, err := p.lookup(j.Path, f.hash)
	if err != nil {
		return retry(o, err)
	}
	if stored != nil && stored.Hash == f.hash && stored.Size >= 0 {
		return p.sameContent(o, stored, f.stat)
	}
	pn, decided := parseFile(&p.parser, &o, f.content)
	if decided {
		return o
	}
	n := newNote(j, f, pn)
	if moveFrom != nil {
		n.Chunker = moveFrom.Chunker
		o.kind, o.note, o.from = outMove, n, moveFrom.Path
		return o
	}
	// Keyword search must not wait for a model: the note goes in with the
	// heuristic's chunks now (cut once the batch's boilerplate is known,
	// in finish), and the model stages replace them later.
	o.kind, o.note, o.enrich, o.parsed = outPut, n, p.w.enrich, pn
	return o
}

// finish cuts an outPut outcome's parsed note with the heuristic, now that
// its boilerplate is known, and computes each chunk's terms.
func (p *preparer) finish(o *outcome) {
	if o.kind != outPut || o.parsed == nil {
		return
	}
	pn := o.parsed
	o.parsed = nil
	o.chunks = newChunks(pn, p.cutter.Heuristic(pn, p.w.cfg.Chunk), &p.terms, p.w.cfg, o.boiler)
	if len(o.boiler) > 0 {
		o.note.Summary = leadSummary(pn, o.boiler)
	}
}

// read opens the job's file inside its folder and reads it, and decides
// the outcome (true) when there is nothing to parse: the file is gone, is
// no note, was forgotten and is unchanged, is too big or cannot be read now.
func (p *preparer) read(o *outcome, rules *ignoreRules) (noteFile, bool) {
	j := o.job
	if rules.ignored(j.Path, false) || !isNoteName(j.Path) {
		o.kind = outRemove
		return noteFile{}, true
	}
	file, err := p.dirs.openNote(j.Folder, j.Path)
	switch {
	case errors.Is(err, errFolderUnreachable):
		return noteFile{}, true // kept, as for a vanished folder
	case errors.Is(err, fs.ErrNotExist):
		*o = p.gone(*o)
		return noteFile{}, true
	case errors.Is(err, errLinkInPath) && isLink(j.Path):
		*o = skipFor(*o, ReasonSymlink)
		return noteFile{}, true
	case errors.Is(err, errLinkInPath), errors.Is(err, errNotRegular):
		o.kind = outRemove // a link above it: the file is not in the folder
		return noteFile{}, true
	case err != nil:
		*o = retry(*o, err)
		return noteFile{}, true
	}
	defer file.close()
	stat := file.stat
	o.size = stat.size
	if skip, ok := p.skips[j.Path]; ok && skip.Reason == ReasonForgotten && unchangedSince(stat, skip) {
		return noteFile{}, true
	}
	max := p.w.cfg.MaxFileBytes
	if stat.size > max {
		*o = tooBig(*o, stat.size, max)
		return noteFile{}, true
	}
	f, err := readNote(file, max)
	switch {
	case errors.Is(err, errTooBig):
		*o = tooBig(*o, max+1, max)
		return f, true
	case err != nil:
		*o = retry(*o, err)
		return f, true
	}
	return f, false
}

// noteFD is an open note file and its stat.
type noteFD struct {
	fd   int
	path string
	stat fileStat
}

// openNote opens the regular file at path in folder (see dirOpener.open)
// and stats it; anything but a regular file is errNotRegular: not a note of
// the folder. The descriptor is the caller's to close. Raw descriptors
// rather than *os.File: an os.File costs a finalizer, a poller check and
// two more system calls per note, and a note is read once, whole.
func (o *dirOpener) openNote(folder, path string) (noteFD, error) {
	fd, err := o.open(folder, path)
	if err != nil {
		return noteFD{}, err
	}
	var st unix.Stat_t
	for {
		if err = unix.Fstat(fd, &st); err != unix.EINTR {
			break
		}
	}
	switch {
	case err != nil:
		err = &os.PathError{Op: "stat", Path: path, Err: err}
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		err = fmt.Errorf("open %s: %w: not a regular file", path, errNotRegular)
	}
	if err != nil {
		unix.Close(fd)
		return noteFD{}, err
	}
	return noteFD{fd: fd, path: path, stat: fileStat{size: st.Size, mtime: time.Unix(st.Mtim.Unix())}}, nil
}

func (f noteFD) close() { unix.Close(f.fd) }

// isLink reports whether path itself (its last component) is a symlink.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// errNotRegular means a note's path names a directory, FIFO or device.
var errNotRegular = errors.New("not a regular file")

// readNote reads an opened note, at most max bytes, and hashes it.
func readNote(file noteFD, max int64) (noteFile, error) {
	content, err := file.read(max)
	if err != nil {
		return noteFile{}, err
	}
	sum := sha256.Sum256(content)
	return noteFile{stat: file.stat, content: content, hash: hex.EncodeToString(sum[:])}, nil
}

// sameContent is the outcome for a file whose content is stored already:
// nothing, or new size and mtime (or a skip to clear).
func (p *preparer) sameContent(o outcome, stored *store.Note, stat fileStat) outcome {
	_, skipped := p.skips[o.job.Path]
	if stored.Size == stat.size && stored.ModTime.Equal(stat.mtime) && !skipped {
		return o
	}
	n := *stored
	n.Size, n.ModTime = stat.size, stat.mtime
	o.kind, o.note = outRefresh, &n
	return o
}

// parseFile parses content with parser, deciding a skip (true) when it is
// no text note.
func parseFile(parser *parse.Parser, o *outcome, content []byte) (*parse.Note, bool) {
	pn, err := parser.Parse(o.job.Path, content)
	switch {
	case errors.Is(err, parse.ErrBinary):
		*o = skipFor(*o, reasonBinary)
	case errors.Is(err, parse.ErrNotUTF8):
		*o = skipFor(*o, reasonNotUTF8)
	case err != nil:
		*o = skipFor(*o, "could not parse: "+err.Error())
	default:
		return pn, false
	}
	return nil, true
}

// newNote is the note to store for a parsed file, cut by the heuristic
// until a model stage says otherwise.
func newNote(j store.Job, f noteFile, pn *parse.Note) *store.Note {
	n := &store.Note{
		Path: j.Path, Folder: j.Folder, Size: f.stat.size, ModTime: f.stat.mtime, Hash: f.hash,
		Title: pn.Title, Aliases: pn.Aliases, Tags: pn.Tags, Links: pn.Links, Summary: leadSummary(pn, nil),
		Chunker: ChunkerHeuristic, IndexedAt: time.Now().UTC(),
	}
	k := 0
	for i := range pn.Blocks {
		if mayBeBoilerplate(pn.Blocks[i].Kind) {
			k++
		}
	}
	if k > 0 {
		n.Blocks = make([]string, 0, k)
		for i := range pn.Blocks {
			if b := &pn.Blocks[i]; mayBeBoilerplate(b.Kind) {
				n.Blocks = append(n.Blocks, b.ID)
			}
		}
	}
	return n
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
	err = p.view(func(tx *store.Tx) error {
		var err error
		if stored, err = tx.LookupNote(path); err != nil {
			return err
		}
		if stored != nil && stored.Hash == hash {
			return nil
		}
		for _, n := range tx.NotesWithHash(hash) {
			if n.Path != path && n.Size >= 0 {
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

// view runs fn in the batch's read transaction, or in one of its own.
func (p *preparer) view(fn func(*store.Tx) error) error {
	if p.tx != nil {
		return fn(p.tx)
	}
	return p.w.db.View(fn)
}

// newChunks turns chunks of pn into chunks to store, with their terms;
// the text of boiler's blocks is stored but not counted.
func newChunks(pn *parse.Note, cs []chunk.Chunk, terms *termCounter, cfg Config, boiler boilerplate) []store.NewChunk {
	out := make([]store.NewChunk, len(cs))
	fields := noteFields(pn, cfg)
	bodies := rankedBodies(pn, cs, boiler)
	for i, c := range cs {
		title := c.Title
		if title == "" {
			title = pn.Title
		}
		out[i] = store.NewChunk{Chunk: store.Chunk{
			StartLine: c.StartLine, EndLine: c.EndLine, Heading: c.Heading, Title: title, Text: c.Text,
		}}
		body := c.Text
		if bodies != nil {
			if !bodies[i].ranked {
				continue
			}
			if cut := bodies[i].cut; cut != nil {
				body = terms.cutBody(c.Text, c.StartLine, cut)
			}
		}
		out[i].Nums = terms.count(body, titleFields(pn.Title, c.Title, c.Heading), cfg.TitleWeight, fields)
		out[i].Vocab = terms.vocab
	}
	return out
}

var errTooBig = errors.New("file grew over the size limit")

// read reads the file, failing with errTooBig past max bytes. The buffer
// is sized from the stat, one byte over, so a note is one allocation and
// one read: a read that leaves the byte over unfilled, having brought
// exactly the size fstat gave, has the whole file as it was stated, and a
// read to find the end again would cost a system call a note. (A file
// appended to after that read is missed by any reader; its change queues
// it again.)
func (f noteFD) read(max int64) ([]byte, error) {
	buf := make([]byte, 0, min(f.stat.size, max)+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, errTooBig
			}
			buf = slices.Grow(buf, int(min(max+1-int64(len(buf)), int64(len(buf))+512)))
		}
		n, err := unix.Read(f.fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0:
			if int64(len(buf)) > max {
				return nil, errTooBig
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) == f.stat.size && len(buf) < cap(buf) {
			return buf, nil
		}
	}
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
