package pipeline

import "errors"

// Errors a caller must tell apart. Each is wrapped with the path it concerns
// and a message a person can act on.
var (
	// ErrUnknownFolder means the path is not a registered folder, or not
	// inside one.
	ErrUnknownFolder = errors.New("unknown folder")
	// ErrNestedFolder means the folder is inside, or contains, a folder that
	// is already registered; a note must belong to exactly one folder.
	ErrNestedFolder = errors.New("folder overlaps a registered folder")
	// ErrNotDir means the path given as a folder is not a directory.
	ErrNotDir = errors.New("not a directory")
)
