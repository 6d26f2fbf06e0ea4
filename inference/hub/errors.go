package hub

import "errors"

// Errors that Pull and Stat wrap with what the user can do next. Compare with
// errors.Is.
var (
	// ErrUnauthorized means the hub refused the request without a token, or
	// with the one given: a gated or private repo.
	ErrUnauthorized = errors.New("hub refused access")
	// ErrNotFound means the repo, the revision or the file does not exist.
	ErrNotFound = errors.New("not found on the hub")
	// ErrChecksum means the downloaded bytes do not hash to what the hub
	// published; the partial file has been deleted.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrDiskFull means the models folder's disk has no room for the file.
	ErrDiskFull = errors.New("not enough disk space")
	// ErrNotModel means the file downloaded intact but is not a GGUF model
	// memd can load; it has been deleted.
	ErrNotModel = errors.New("not a usable GGUF model")
	// ErrInterrupted means the download stopped before the end; the partial
	// file is kept and the next Pull resumes it.
	ErrInterrupted = errors.New("download interrupted")
)
