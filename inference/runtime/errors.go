package runtime

import "errors"

// Errors callers tell apart with errors.Is.
var (
	// ErrNotFound means no llama.cpp library folder was found.
	ErrNotFound = errors.New("llama.cpp libraries not found")
	// ErrNoPackage means there is no pinned package for the requested
	// backend on this machine.
	ErrNoPackage = errors.New("no llama.cpp package for this machine")
	// ErrBadPackage means a fetched package is not what memd expects (wrong
	// llama.cpp release, missing files, unsafe paths).
	ErrBadPackage = errors.New("unexpected llama.cpp package")
	// ErrNPM means the npm client failed or is missing.
	ErrNPM = errors.New("npm pack failed")
)
