package memd

import "time"

// Status is a snapshot of what the daemon holds and is doing.
type Status struct {
	Version string         `json:"version"`
	PID     int            `json:"pid"`
	Started time.Time      `json:"started"`
	Folders []FolderStatus `json:"folders"`
	Notes   int            `json:"notes"`
	Chunks  int            `json:"chunks"`
	Pending int            `json:"pending"` // queued jobs not yet done
	// Enriching counts notes already findable by keyword (the heuristic's
	// chunks) whose model stages have not yet replaced them.
	Enriching int           `json:"enriching"`
	Skipped   int           `json:"skipped"` // files skipped with a recorded reason
	Indexed   int64         `json:"indexed"` // notes indexed since start
	DataDir   string        `json:"data_dir"`
	DBBytes   int64         `json:"db_bytes"`
	Vectors   int           `json:"vectors"` // chunk vectors stored for the configured embedder
	Chunker   ChunkerCounts `json:"chunker"`
	Models    []ModelStatus `json:"models"`
	Warnings  []string      `json:"warnings,omitempty"`
}

// ChunkerCounts is how many notes each chunker cut: the model, the
// heuristic fallback after a model answer that could not be repaired, and
// the heuristic chunker because no model was configured.
type ChunkerCounts struct {
	Model     int `json:"model"`
	Fallback  int `json:"fallback"`
	Heuristic int `json:"heuristic"`
}
