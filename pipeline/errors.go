package pipeline

import (
	"errors"
	"fmt"
)

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

// kindError is an error of a kind (errors.Is finds it) whose message says
// so in its own sentence, without the kind's words before it: a person
// reads "x is not indexed", not "not found: forget x: store: not found: …".
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

func errorOf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
