package pipeline

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/vector"
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
	// AliasWeight, DescriptionWeight and OtherFieldWeight are how many
	// times a term of the front matter's aliases, its description (desc,
	// description or summary) and its other string values counts in each
	// chunk of the note (noteFields). Zero means the default (2, 2, 1:
	// measured on the Dendron vault, BENCHMARKS.md);
	// negative leaves the field out.
	AliasWeight       int
	DescriptionWeight int
	OtherFieldWeight  int
	// Debounce is how long a path must stay quiet after a change before it
	// is queued, so that an editor's save is one change. Zero means 300ms.
	Debounce time.Duration
	// Reconcile is how often every folder is walked and compared with the
	// store, catching what the watcher missed and folders that came back.
	// Zero means 10 minutes.
	Reconcile time.Duration
	// BatchNotes is how many jobs one write transaction commits at most
	// (group commit). Zero means 2,048 without models (each commit rewrites
	// the index pages it touches, so fewer, larger commits are cheaper:
	// SciFact costs 3.5 CPU-s at 64 notes a commit, 2.5 at 512, 2.3 at
	// 2,048) and 2×Stages with them (model stages are slow; smaller batches
	// show progress sooner). A batch also stops at BatchBytes of files.
	BatchNotes int
	// BurstBatchNotes is the most jobs a batch takes once a burst of work
	// (from its first batch to the idle release) is under way: its first
	// batch takes BatchNotes, so the first notes are searchable soon, each
	// later one twice the last, up to this. A commit rewrites every index
	// page its notes touch, and a large index has more pages for a batch
	// to touch, so a bulk add commits fewer, larger batches: 100,000
	// generated notes cost 5% less CPU growing to 8,192 than at 2,048 a
	// batch, for a peak 15-20% higher (712-765 MB against 612-629; the
	// benchmark host, BENCHMARKS.md, "Write amplification of a bulk add").
	// Zero means 4×BatchNotes when BatchNotes is left to its default
	// without models, else BatchNotes: batches of one size.
	BurstBatchNotes int
	// BatchBytes bounds the file bytes one batch holds in memory. Zero
	// means 64 MiB.
	BatchBytes int64
	// Workers is how many goroutines read, parse and chunk a batch before
	// its transaction. Zero means GOMAXPROCS, at most 8.
	Workers int
	// Logger receives warnings and per-file errors. Nil means slog.Default().
	Logger *slog.Logger

	// Generator runs the chunk stage (with the ChunkAdapter active) and
	// the summarize stage (base model). Nil means the heuristic chunker and
	// extractive lead summaries.
	Generator Completer
	// ChunkAdapter names the generator's LoRA adapter for the chunk stage;
	// "" means "memory-chunk". A generator without it does not chunk
	// (notes are cut by the heuristic, ChunkerStatus says why) but still
	// summarizes.
	ChunkAdapter string
	// ChunkContext is the most tokens of one chunk request, prompt and
	// answer; longer notes are chunked in overlapping windows. Zero means
	// the generator's ContextPerSlot when it says, else 2048.
	ChunkContext int
	// Embedder embeds chunks; nil means no vectors.
	Embedder vector.Embedder
	// Vectors, when set, hears of every vector written or removed, after
	// the commit, so its in-memory index stays in step.
	Vectors *vector.Serving
	// Stages is how many notes go through the model stages at once, so
	// their requests batch in the inference schedulers. Zero means 8.
	Stages int
}

const (
	defaultMaxFileBytes = 4 << 20
	defaultTitleWeight  = 2
	defaultAliasWeight  = 2
	defaultDescWeight   = 2
	defaultOtherWeight  = 1
	defaultDebounce     = 300 * time.Millisecond
	defaultReconcile    = 10 * time.Minute
	defaultBatchNotes   = 2048
	burstBatchGrowth    = 4 // the default BurstBatchNotes, in BatchNotes
	defaultBatchBytes   = 64 << 20
	maxAttempts         = 3 // reads of one file before a transient error becomes a skip
	defaultChunkAdapter = "memory-chunk"
	defaultStages       = 8
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
	c.AliasWeight = weightOr(c.AliasWeight, defaultAliasWeight)
	c.DescriptionWeight = weightOr(c.DescriptionWeight, defaultDescWeight)
	c.OtherFieldWeight = weightOr(c.OtherFieldWeight, defaultOtherWeight)
	if c.Debounce <= 0 {
		c.Debounce = defaultDebounce
	}
	if c.Reconcile <= 0 {
		c.Reconcile = defaultReconcile
	}
	if c.BatchBytes <= 0 {
		c.BatchBytes = defaultBatchBytes
	}
	if c.Workers <= 0 {
		c.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ChunkAdapter == "" {
		c.ChunkAdapter = defaultChunkAdapter
	}
	if c.Stages <= 0 {
		c.Stages = defaultStages
	}
	if c.BatchNotes <= 0 {
		c.BatchNotes = defaultBatchNotes
		if c.Generator != nil || c.Embedder != nil {
			c.BatchNotes = 2 * c.Stages
		} else if c.BurstBatchNotes <= 0 {
			c.BurstBatchNotes = burstBatchGrowth * defaultBatchNotes
		}
	}
	c.BurstBatchNotes = max(c.BurstBatchNotes, c.BatchNotes)
	return c
}

// weightOr is w, def when w is zero, 0 (left out) when w is negative.
func weightOr(w, def int) int {
	switch {
	case w == 0:
		return def
	case w < 0:
		return 0
	}
	return w
}
