package parse

import "errors"

// Errors Parse returns for content that is not a text note. The caller
// records them as the reason a file was skipped.
var (
	// ErrBinary means the content looks binary (NUL or many control bytes).
	ErrBinary = errors.New("binary content")
	// ErrNotUTF8 means the content is text but not valid UTF-8 (for
	// example UTF-16 or Latin-1); convert it to UTF-8 to have it indexed.
	ErrNotUTF8 = errors.New("not valid UTF-8")
)
