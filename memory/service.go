package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// Indexer is the part of the pipeline the service drives.
type Indexer interface {
	AddFolder(ctx context.Context, path string) (store.Folder, error)
	RemoveFolder(ctx context.Context, path string) error
	Reindex(ctx context.Context, path string) (int, error)
	Forget(ctx context.Context, path string) error
	Subscribe(ctx context.Context) <-chan memd.Event
	Folders() []pipeline.FolderState
	WaitIdle(ctx context.Context) error
	IndexedSinceStart() int64
	// ReadNote returns the content of a note file inside a registered
	// folder, read so that nothing outside the folder can be reached.
	ReadNote(path string) ([]byte, error)
}

// chunkerCounter is the part of *pipeline.Indexer that counts notes by
// chunker; an Indexer without it reports zeros.
type chunkerCounter interface {
	ChunkerCounts() (model, fallback, heuristic int)
}

// Config wires a Service. DB and Indexer are required.
type Config struct {
	DB      *store.DB
	Indexer Indexer
	BM25    rank.BM25 // zero means rank.DefaultBM25
	Version string    // reported in Status
	DataDir string

	// Vectors is the vector index the pipeline keeps in step
	// (vector.NewServing, passed to the pipeline's Config too). When it is
	// nil and Embedder is set, New makes one over the vectors already
	// stored, which then follows no commits; Close closes it.
	Vectors  *vector.Serving
	Embedder vector.Embedder
	// Reranker, when set, re-orders the best fused hits.
	Reranker Reranker
	// Fusion tunes how BM25 and vector lists merge; zero fields take
	// rank.DefaultFusion's values.
	Fusion rank.Fusion
	// VectorFloor is the cosine similarity a vector-only hit must pass
	// (one BM25 also found always may); zero means the floor calibrated
	// for the embedder on the notes (vector.Served.Floor), negative no
	// floor.
	VectorFloor float64
	// Typos tunes typo tolerance; the zero value is rank.DefaultTypos.
	Typos rank.Typos
	// Expand makes every recall expand its query from the best chunks it
	// finds (pseudo-relevance feedback) unless the request says otherwise;
	// Expansion tunes it, zero fields taking rank.DefaultExpansion's values.
	Expand    bool
	Expansion rank.Expansion
	// Models describes the daemon's model roles for Status.
	Models []memd.ModelStatus
	// Generator answers Chat; nil means chat answers ErrUnavailable.
	Generator Generator
	Chat      ChatOptions
}

// Service answers recall over the store and manages folders through the
// indexer. It is safe for concurrent use.
type Service struct {
	db    *store.DB
	ix    Indexer
	bm25  rank.BM25
	typos rank.Typos
	// expandByDefault is Config.Expand.
	expandByDefault bool
	expansion       rank.Expansion
	// vectorFloorSet is Config.VectorFloor, 0 for the calibrated floor.
	vectorFloorSet float64
	spelling       *spelling
	version        string
	dataDir        string
	started        time.Time

	vectors     *vector.Serving
	ownsVectors bool
	reranker    Reranker
	fusion      rank.Fusion
	models      []memd.ModelStatus
	gen         Generator
	chat        *chatState
	graphs      graphCache
}

// New returns a Service over cfg.
func New(cfg Config) *Service {
	p := cfg.BM25
	if p == (rank.BM25{}) {
		p = rank.DefaultBM25
	}
	s := &Service{db: cfg.DB, ix: cfg.Indexer, bm25: p, version: cfg.Version,
		typos: cfg.Typos.WithDefaults(), expandByDefault: cfg.Expand, expansion: cfg.Expansion.WithDefaults(), spelling: &spelling{db: cfg.DB}, vectorFloorSet: cfg.VectorFloor,
		dataDir: cfg.DataDir, started: time.Now().UTC(),
		vectors: cfg.Vectors, reranker: cfg.Reranker, fusion: cfg.Fusion.WithDefaults(), models: cfg.Models,
		gen: cfg.Generator, chat: newChatState(cfg.Chat)}
	if s.vectors == nil && cfg.Embedder != nil {
		s.vectors, s.ownsVectors = vector.NewServing(cfg.DB, vector.ServingConfig{Embedder: cfg.Embedder}), true
	}
	return s
}

// Close stops what the Service started itself: the vector index New made
// when Config.Vectors was nil, and a term dictionary being rebuilt. It
// closes no model.
func (s *Service) Close() error {
	s.spelling.wait()
	if s.ownsVectors {
		return s.vectors.Close()
	}
	return nil
}

// Status reports what the store holds and what the indexer is doing.
func (s *Service) Status(ctx context.Context) (memd.Status, error) {
	st := memd.Status{Version: s.version, PID: os.Getpid(), Started: s.started, DataDir: s.dataDir,
		Folders: []memd.FolderStatus{}, Models: []memd.ModelStatus{}}
	folders, err := s.Folders(ctx)
	if err != nil {
		return st, err
	}
	st.Folders = folders
	err = s.db.View(func(tx *store.Tx) error {
		c := tx.Counts()
		st.Notes, st.Chunks, st.Pending, st.Skipped = c.Notes, c.Chunks, c.Pending, c.Skipped
		st.Enriching = c.Enriching
		return nil
	})
	st.DBBytes = s.db.Size()
	st.Indexed = s.ix.IndexedSinceStart()
	vs := s.vectors.Stats()
	st.Vectors = vs.Stored
	st.Warnings = append(st.Warnings, vs.Warnings...)
	if cc, ok := s.ix.(chunkerCounter); ok {
		c := &st.Chunker
		c.Model, c.Fallback, c.Heuristic = cc.ChunkerCounts()
	}
	st.Models = append(st.Models, s.models...)
	return st, err
}

// Folders lists the registered folders with their note counts and watch state.
func (s *Service) Folders(ctx context.Context) ([]memd.FolderStatus, error) {
	states := map[string]pipeline.FolderState{}
	for _, f := range s.ix.Folders() {
		states[f.Path] = f
	}
	out := []memd.FolderStatus{}
	err := s.db.View(func(tx *store.Tx) error {
		folders, err := tx.Folders()
		if err != nil {
			return err
		}
		for _, f := range folders {
			st := states[f.Path]
			out = append(out, memd.FolderStatus{Path: f.Path, Added: f.Added,
				Notes: tx.CountNotes(f.Path + string(filepath.Separator)), Watching: st.Watching, Error: st.Error})
		}
		return nil
	})
	return out, err
}

// AddFolder registers a folder and starts indexing it. Adding a folder
// that is already registered answers its status as it is: its notes and
// whether it is watched, as Folders says.
func (s *Service) AddFolder(ctx context.Context, path string) (memd.FolderStatus, error) {
	f, err := s.ix.AddFolder(ctx, path)
	if err != nil {
		return memd.FolderStatus{}, classify(err)
	}
	all, err := s.Folders(ctx)
	if err != nil {
		return memd.FolderStatus{}, err
	}
	for _, st := range all {
		if st.Path == f.Path {
			return st, nil
		}
	}
	return memd.FolderStatus{Path: f.Path, Added: f.Added}, nil
}

// RemoveFolder stops watching a folder and forgets its notes.
func (s *Service) RemoveFolder(ctx context.Context, path string) error {
	return classify(s.ix.RemoveFolder(ctx, path))
}

// Reindex queues path ("" for every folder) to be indexed again.
func (s *Service) Reindex(ctx context.Context, path string) (int, error) {
	n, err := s.ix.Reindex(ctx, path)
	return n, classify(err)
}

// Compact gives the store's free space back to the disk (store.DB.Compact).
func (s *Service) Compact(ctx context.Context) (memd.CompactResult, error) {
	before, after, err := s.db.Compact()
	return memd.CompactResult{BeforeBytes: before, AfterBytes: after}, err
}

// Forget removes one note from the index and keeps it out until it changes.
func (s *Service) Forget(ctx context.Context, path string) error {
	return classify(s.ix.Forget(ctx, path))
}

// WaitIdle returns when the indexer has no work pending.
func (s *Service) WaitIdle(ctx context.Context) error { return s.ix.WaitIdle(ctx) }

// Note returns one indexed note with its chunks.
func (s *Service) Note(ctx context.Context, path string) (memd.NoteDetail, error) {
	var d memd.NoteDetail
	err := s.db.View(func(tx *store.Tx) error {
		n, err := tx.Note(path)
		if err != nil {
			return err
		}
		d = memd.NoteDetail{Folder: n.Folder, Path: n.Path, Title: n.Title, Size: n.Size, ModTime: n.ModTime,
			Hash: n.Hash, Tags: n.Tags, Links: n.Links, Summary: n.Summary, Chunker: n.Chunker, Chunks: []memd.Hit{}}
		for _, id := range n.Chunks {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			d.Chunks = append(d.Chunks, hitOf(c, n.Summary, 0))
		}
		return nil
	})
	return d, classify(err)
}

// Subscribe streams index events until ctx ends; a subscriber that falls
// behind loses events rather than slowing indexing.
func (s *Service) Subscribe(ctx context.Context) <-chan memd.Event { return s.ix.Subscribe(ctx) }

// Skips lists files that were not indexed and why.
func (s *Service) Skips(ctx context.Context) ([]memd.Skip, error) {
	out := []memd.Skip{}
	err := s.db.View(func(tx *store.Tx) error {
		skips, err := tx.Skips()
		for _, k := range skips {
			out = append(out, memd.Skip{Path: k.Path, Reason: k.Reason, At: k.At})
		}
		return err
	})
	return out, err
}

// classify maps lower layers' errors onto the service's error kinds, keeping
// their messages.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return classified{memd.ErrNotFound, err}
	case errors.Is(err, pipeline.ErrUnknownFolder):
		return classified{memd.ErrUnknownFolder, err}
	case errors.Is(err, fs.ErrNotExist):
		return classified{memd.ErrNotFound, err}
	case errors.Is(err, pipeline.ErrNestedFolder), errors.Is(err, pipeline.ErrNotDir), errors.Is(err, pipeline.ErrNotNote):
		return classified{memd.ErrBadRequest, err}
	}
	return err
}

// classified is err, which is also of the API's kind; its message is err's
// alone, since err already says what is wrong in words.
type classified struct{ kind, err error }

func (c classified) Error() string   { return c.err.Error() }
func (c classified) Unwrap() []error { return []error{c.kind, c.err} }
