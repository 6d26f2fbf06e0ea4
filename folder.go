package memd

import (
	"path/filepath"
	"time"
)

// FolderStatus describes one registered folder.
type FolderStatus struct {
	Path     string    `json:"path"`
	Added    time.Time `json:"added"`
	Notes    int       `json:"notes"`
	Watching bool      `json:"watching"`
	Error    string    `json:"error,omitempty"`
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

// Skip is a file that was not indexed, and why.
type Skip struct {
	Path   string    `json:"path"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// PathBody is the body of the routes that take one path: a folder or a
// note.
type PathBody struct {
	Path string `json:"path"`
}

// Validate refuses a missing or relative path: the daemon's working folder
// is not the client's, so a relative path would name the wrong file. The
// error wraps ErrBadRequest.
func (b PathBody) Validate() error {
	if b.Path == "" {
		return badRequest(`"path" is missing; send {"path":"/absolute/path"}`)
	}
	if !filepath.IsAbs(b.Path) {
		return badRequest("path %q is relative; send an absolute path (memctl makes paths absolute for you)", b.Path)
	}
	return nil
}

// FolderList is the answer of GET /v1/folders.
type FolderList struct {
	Folders []FolderStatus `json:"folders"`
}

// SkipList is the answer of GET /v1/skips.
type SkipList struct {
	Skips []Skip `json:"skips"`
}

// Removed is the answer of the routes that delete something by path.
type Removed struct {
	Path    string `json:"path"`
	Removed bool   `json:"removed"`
}

// ReindexResult is the answer of POST /v1/reindex: how many jobs were
// queued.
type ReindexResult struct {
	Queued int `json:"queued"`
	// Started is true when memd answered (202) before the notes were all
	// queued, which under load takes a while: the reindex goes on in the
	// background, Queued is what was known then, and /v1/status shows the
	// progress.
	Started bool `json:"started,omitempty"`
}

// IdleResult is the answer of GET /v1/idle: true once no indexing work is
// pending, false when the wait ran out first.
type IdleResult struct {
	Idle bool `json:"idle"`
}

// CompactResult is the answer of POST /v1/compact: the store file's size
// before and after its live data was copied into a new file.
type CompactResult struct {
	BeforeBytes int64 `json:"before_bytes"`
	AfterBytes  int64 `json:"after_bytes"`
}
