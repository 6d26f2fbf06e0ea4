package memory

import "errors"

// Errors callers tell apart; api maps them to status codes. Each is wrapped
// with a message a person can act on.
var (
	ErrBadRequest    = errors.New("bad request")
	ErrNotFound      = errors.New("not found")
	ErrUnknownFolder = errors.New("unknown folder")
	ErrUnavailable   = errors.New("unavailable")
	ErrBusy          = errors.New("busy") // too much work in flight; see BusyError
)
