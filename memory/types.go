package memory

import "time"

// Filters narrow recall to part of the notes. The zero value matches every
// chunk.
type Filters struct {
	Folder         string    `json:"folder,omitempty"`         // absolute folder path as registered
	PathPrefix     string    `json:"path_prefix,omitempty"`    // absolute path prefix of the note
	Tags           []string  `json:"tags,omitempty"`           // every tag must be on the note
	ModifiedAfter  time.Time `json:"modified_after,omitzero"`  // note mtime strictly after
	ModifiedBefore time.Time `json:"modified_before,omitzero"` // note mtime strictly before
}

// RecallRequest asks for the K chunks that best answer Query.
type RecallRequest struct {
	Query   string  `json:"query"`
	K       int     `json:"k,omitempty"` // 0 means DefaultK
	Filters Filters `json:"filters,omitzero"`
	Explain bool    `json:"explain,omitempty"`
}

// DefaultK is the number of hits a recall returns when K is zero; MaxK caps K.
const (
	DefaultK = 10
	MaxK     = 1000
)

// Hit is one chunk of a note that answers a query. Paths are absolute; lines
// are 1-based and inclusive.
type Hit struct {
	Folder    string   `json:"folder"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Heading   []string `json:"heading"`
	Title     string   `json:"title,omitempty"`
	Text      string   `json:"text"`
	Summary   string   `json:"summary"`
	// Score is on one scale with or without vectors (rank.Fuse): in
	// (0, 1], 1 for a chunk ranked first by every list the recall fused,
	// falling with rank. With a reranker it is the reranker's score.
	Score   float64  `json:"score"`
	ChunkID uint64   `json:"chunk_id"`
	Why     []Reason `json:"why,omitempty"`
}

// Reason says which ranked list placed a hit, and where.
type Reason struct {
	List  string  `json:"list"` // "bm25", "vector", "rerank"
	Rank  int     `json:"rank"` // 1-based
	Score float64 `json:"score"`
}

// RecallResult is the answer to a RecallRequest, best hit first.
type RecallResult struct {
	Hits     []Hit    `json:"hits"`
	Warnings []string `json:"warnings,omitempty"`
	// CorrectedQuery is the query as recall looked for it when it matched
	// misspelled words to words the notes hold ("showing results for …");
	// empty when it took the query as it was.
	CorrectedQuery string  `json:"corrected_query,omitempty"`
	TookMS         float64 `json:"took_ms"`
}

// FolderStatus describes one registered folder.
type FolderStatus struct {
	Path     string    `json:"path"`
	Added    time.Time `json:"added"`
	Notes    int       `json:"notes"`
	Watching bool      `json:"watching"`
	Error    string    `json:"error,omitempty"`
}

// Status is a snapshot of what the daemon holds and is doing.
type Status struct {
	Version  string         `json:"version"`
	PID      int            `json:"pid"`
	Started  time.Time      `json:"started"`
	Folders  []FolderStatus `json:"folders"`
	Notes    int            `json:"notes"`
	Chunks   int            `json:"chunks"`
	Pending  int            `json:"pending"` // queued jobs not yet done
	Skipped  int            `json:"skipped"` // files skipped with a recorded reason
	Indexed  int64          `json:"indexed"` // notes indexed since start
	DataDir  string         `json:"data_dir"`
	DBBytes  int64          `json:"db_bytes"`
	Vectors  int            `json:"vectors"` // chunk vectors stored for the configured embedder
	Chunker  ChunkerCounts  `json:"chunker"`
	Models   []ModelStatus  `json:"models"`
	Warnings []string       `json:"warnings,omitempty"`
}

// ChunkerCounts is how many notes each chunker cut: the model, the
// heuristic fallback after a model answer that could not be repaired, and
// the heuristic chunker because no model was configured.
type ChunkerCounts struct {
	Model     int `json:"model"`
	Fallback  int `json:"fallback"`
	Heuristic int `json:"heuristic"`
}

// ModelStatus describes one model role (generator, embedder, reranker).
type ModelStatus struct {
	Role        string `json:"role"`
	Path        string `json:"path,omitempty"`
	Loaded      bool   `json:"loaded"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Backend     string `json:"backend,omitempty"` // where it runs: cpu, cuda, vulkan, metal
	Device      string `json:"device,omitempty"`
	// Build is the llama.cpp build memd loaded (cpu, cuda, ...): a GPU
	// build whose model runs on the cpu found no GPU.
	Build string `json:"build,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
	Reason      string `json:"reason,omitempty"` // why it is not loaded
}

// Skip is a file that was not indexed, and why.
type Skip struct {
	Path   string    `json:"path"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// NoteDetail is one indexed note with its chunks.
type NoteDetail struct {
	Folder  string    `json:"folder"`
	Path    string    `json:"path"`
	Title   string    `json:"title"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Hash    string    `json:"hash"`
	Tags    []string  `json:"tags"`
	Links   []string  `json:"links"`
	Summary string    `json:"summary"`
	Chunker string    `json:"chunker"`
	Chunks  []Hit     `json:"chunks"`
}

// Event is a change in the index, sent to subscribers.
type Event struct {
	Type    string    `json:"type"` // EventIndexed, EventRemoved, EventSkipped, EventProgress, EventError
	Path    string    `json:"path,omitempty"`
	Folder  string    `json:"folder,omitempty"`
	Chunks  int       `json:"chunks,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Pending int       `json:"pending"`
	Notes   int       `json:"notes"`
	At      time.Time `json:"at"`
}

// Event types.
const (
	EventIndexed  = "note.indexed"
	EventRemoved  = "note.removed"
	EventSkipped  = "note.skipped"
	EventProgress = "progress"
	EventError    = "error"
)
