package memd

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Filters narrow recall to part of the notes. The zero value matches every
// chunk.
type Filters struct {
	Folder         string    `json:"folder,omitempty"`         // absolute folder path as registered
	PathPrefix     string    `json:"path_prefix,omitempty"`    // absolute path prefix of the note
	Tags           []string  `json:"tags,omitempty"`           // every tag must be on the note, itself or a tag under it ("garden" matches "garden/bees")
	ModifiedAfter  time.Time `json:"modified_after,omitzero"`  // note mtime strictly after
	ModifiedBefore time.Time `json:"modified_before,omitzero"` // note mtime strictly before
}

// RecallRequest asks for the K chunks that best answer Query.
type RecallRequest struct {
	Query   string  `json:"query"`
	K       int     `json:"k,omitempty"` // 0 means DefaultK
	Filters Filters `json:"filters,omitzero"`
	Explain bool    `json:"explain,omitempty"`
	// PerNote returns one hit per note, its best chunk, so that K counts
	// notes and a long note cannot fill the list.
	PerNote bool `json:"per_note,omitempty"`
	// Expand adds to the query the words that best mark the chunks it
	// finds first, and asks again (pseudo-relevance feedback); nil means
	// the daemon's default (recall.expand in the config, off unless set).
	Expand *bool `json:"expand,omitempty"`
	// Excerpt, when set, sends each hit's first lines (Hit.Excerpt) in
	// place of its text and summary: what a list of hits shows, in a
	// tenth of the bytes to encode, send and decode.
	Excerpt *Excerpt `json:"excerpt,omitempty"`
}

// DefaultK is the number of hits a recall returns when K is zero; MaxK caps K.
const (
	DefaultK = 10
	MaxK     = 1000
)

// MaxQueryBytes bounds a query; longer text is not a query but a document.
const MaxQueryBytes = 8 << 10

// Validate refuses what no service could answer, naming the field. The
// error wraps ErrBadRequest.
func (r *RecallRequest) Validate() error {
	q := strings.TrimSpace(r.Query)
	switch {
	case q == "":
		return badRequest(`"query" is empty; send {"query":"what you are looking for"}`)
	case len(q) > MaxQueryBytes:
		return badRequest("the query is %d bytes, over the %d-byte limit", len(q), MaxQueryBytes)
	case r.K < 0 || r.K > MaxK:
		return badRequest(`"k" is %d; send a number from 1 to %d, or leave it out for %d`, r.K, MaxK, DefaultK)
	}
	if err := r.Excerpt.validate(); err != nil {
		return err
	}
	return r.Filters.Validate()
}

// Validate refuses filters that name a relative path or that no note can
// match. The error wraps ErrBadRequest.
func (f *Filters) Validate() error {
	for _, p := range []struct{ name, path string }{{"filters.folder", f.Folder}, {"filters.path_prefix", f.PathPrefix}} {
		if p.path != "" && !filepath.IsAbs(p.path) {
			return badRequest("%q is %q, a relative path; send an absolute path", p.name, p.path)
		}
	}
	if !f.ModifiedAfter.IsZero() && !f.ModifiedBefore.IsZero() && !f.ModifiedAfter.Before(f.ModifiedBefore) {
		return badRequest(`"filters.modified_after" (%s) is not before "filters.modified_before" (%s); no note can match`,
			f.ModifiedAfter.Format(time.RFC3339), f.ModifiedBefore.Format(time.RFC3339))
	}
	return nil
}

// RecallResult is the answer to a RecallRequest, best hit first.
type RecallResult struct {
	Hits     []Hit    `json:"hits"`
	Warnings []string `json:"warnings,omitempty"`
	// CorrectedQuery is the query as recall looked for it when it matched
	// misspelled words to words the notes hold ("showing results for …"),
	// each spelled as the notes write it; a word the notes hold rarely is
	// looked for as typed too, and reads "word (or correction)". Empty
	// when it took the query as it was.
	CorrectedQuery string  `json:"corrected_query,omitempty"`
	TookMS         float64 `json:"took_ms"`
}

// badRequest is an error wrapping ErrBadRequest with a message a person can
// act on.
func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadRequest}, args...)...)
}
