package memd

import (
	"errors"
	"fmt"
	"time"
)

// Errors callers tell apart, on either side of the socket. The service
// wraps each with a message a person can act on; the server answers each
// with its code; an *Error from the client matches the one of its code
// under errors.Is.
var (
	ErrBadRequest    = errors.New("bad request")
	ErrNotFound      = errors.New("not found")
	ErrUnknownFolder = errors.New("unknown folder")
	ErrUnavailable   = errors.New("unavailable")
	ErrBusy          = errors.New("busy") // too much work in flight; see BusyError
)

// BusyError refuses work when too much is in flight; it wraps ErrBusy and
// says when to try again.
type BusyError struct {
	InFlight   int
	RetryAfter time.Duration
	// Work names what is busy, plural ("recalls"); "" means chats.
	Work string
}

func (e *BusyError) Error() string {
	work := e.Work
	if work == "" {
		work = "chats"
	}
	return fmt.Sprintf("memd is answering %d %s, its limit; try again in %v", e.InFlight, work, e.RetryAfter)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Error codes sent in the "code" field of an error body. Clients switch on
// these, not on messages.
const (
	CodeBadRequest       = "bad_request"
	CodeNotFound         = "not_found"
	CodeUnknownFolder    = "unknown_folder"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeTooLarge         = "too_large"
	CodeForbidden        = "forbidden"
	CodeUnauthorized     = "unauthorized"
	CodeUnavailable      = "unavailable"
	CodeTimeout          = "timeout"
	CodeBusy             = "busy"
	CodeInternal         = "internal"
)

// Error is an error answered by memd: the HTTP status, a stable code and a
// message a person can act on. The client returns every non-2xx answer as
// an *Error.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfter, on a busy answer, is how long to wait before trying
	// again; it travels as the Retry-After header.
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Is lets errors.Is match an *Error against the error of the same kind, so
// code on either side of the socket can test errors alike.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.Code == CodeBadRequest
	case ErrNotFound:
		return e.Code == CodeNotFound
	case ErrUnknownFolder:
		return e.Code == CodeUnknownFolder
	case ErrUnavailable:
		return e.Code == CodeUnavailable
	case ErrBusy:
		return e.Code == CodeBusy
	}
	return false
}

// ErrorBody is the JSON shape of every error: {"error":{"code":…,"message":…}}.
type ErrorBody struct {
	Error *Error `json:"error"`
}
