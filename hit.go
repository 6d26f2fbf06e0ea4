package memd

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
	// Score is on one scale with or without vectors: in (0, 1], 1 for a
	// chunk ranked first by every list the recall fused (BM25, vectors),
	// falling with rank (rank.Fuse). With a reranker it is the reranker's.
	Score   float64  `json:"score"`
	ChunkID uint64   `json:"chunk_id"`
	Why     []Reason `json:"why,omitempty"`
	// Excerpt is the chunk's first lines when the recall asked for them
	// (RecallRequest.Excerpt); Text and Summary are then empty.
	Excerpt []string `json:"excerpt,omitempty"`
}

// Reason says which ranked list placed a hit, and where.
type Reason struct {
	List  string  `json:"list"` // "bm25", "vector", "rerank"
	Rank  int     `json:"rank"` // 1-based
	Score float64 `json:"score"`
}
