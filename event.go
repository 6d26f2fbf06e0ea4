package memd

import "time"

// Event is a change in the index, sent to subscribers. Pending and Notes
// are the store's counts after the transaction the event reports.
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
	EventIndexed  = "note.indexed" // a note was written (new, changed or renamed)
	EventRemoved  = "note.removed" // a note left the index (file gone, ignored, forgotten)
	EventSkipped  = "note.skipped" // a file was not indexed; Reason says why
	EventProgress = "progress"     // a batch committed; Pending and Notes are current
	EventError    = "error"        // something failed that the indexer will retry or report
)
