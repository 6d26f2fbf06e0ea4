package pipeline

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/memd-dev/memd/pipeline/chunk"
)

// Config tunes an Indexer. The zero value is what the daemon uses.
type Config struct {
	// MaxFileBytes is the largest file indexed; a bigger one is recorded as
	// a skip with its size. Zero means 4 MiB.
	MaxFileBytes int64
	// Chunk tunes the heuristic chunker; zero fields take its defaults.
	Chunk chunk.Options
	// TitleWeight is how many times a term of the note title, the chunk
	// title or the heading path counts, on top of its count in the body.
	// Zero means 2; a negative value leaves titles unweighted.
	TitleWeight int
	// Debounce is how long a path must stay quiet after a change before it
	// is queued, so that an editor's save is one change. Zero means 300ms.
	Debounce time.Duration
	// Reconcile is how often every folder is walked and compared with the
	// store, catching what the watcher missed and folders that came back.
	// Zero means 10 minutes.
	Reconcile time.Duration
	// BatchNotes is how many jobs one write transaction commits (group
	// commit). Zero means 64.
	BatchNotes int
	// Workers is how many goroutines read, parse and chunk a batch before
	// its transaction. Zero means GOMAXPROCS, at most 8.
	Workers int
	// Logger receives warnings and per-file errors. Nil means slog.Default().
	Logger *slog.Logger
}

const (
	defaultMaxFileBytes = 4 << 20
	defaultTitleWeight  = 2
	defaultDebounce     = 300 * time.Millisecond
	defaultReconcile    = 10 * time.Minute
	defaultBatchNotes   = 64
	maxAttempts         = 3 // reads of one file before a transient error becomes a skip
)

func (c Config) withDefaults() Config {
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = defaultMaxFileBytes
	}
	if c.TitleWeight == 0 {
		c.TitleWeight = defaultTitleWeight
	} else if c.TitleWeight < 0 {
		c.TitleWeight = 0
	}
	if c.Debounce <= 0 {
		c.Debounce = defaultDebounce
	}
	if c.Reconcile <= 0 {
		c.Reconcile = defaultReconcile
	}
	if c.BatchNotes <= 0 {
		c.BatchNotes = defaultBatchNotes
	}
	if c.Workers <= 0 {
		c.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
