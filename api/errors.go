package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/memd-dev/memd/memory"
)

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

// Is lets errors.Is match an *Error against the memory error of the same
// kind, so code on either side of the socket can test errors alike.
func (e *Error) Is(target error) bool {
	switch target {
	case memory.ErrBadRequest:
		return e.Code == CodeBadRequest
	case memory.ErrNotFound:
		return e.Code == CodeNotFound
	case memory.ErrUnknownFolder:
		return e.Code == CodeUnknownFolder
	case memory.ErrUnavailable:
		return e.Code == CodeUnavailable
	case memory.ErrBusy:
		return e.Code == CodeBusy
	}
	return false
}

// errorBody is the JSON shape of every error: {"error":{"code":…,"message":…}}.
type errorBody struct {
	Error *Error `json:"error"`
}

func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// asError turns an error from the service into the answer the client sees.
// Errors of no known kind are internal: the message is kept, since the only
// reader is the user who owns the daemon.
func asError(err error) *Error {
	var (
		e    *Error
		busy *memory.BusyError
	)
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, memory.ErrUnknownFolder):
		return &Error{Status: http.StatusNotFound, Code: CodeUnknownFolder, Message: err.Error()}
	case errors.Is(err, memory.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, memory.ErrBadRequest):
		return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: err.Error()}
	case errors.As(err, &busy):
		return &Error{Status: http.StatusTooManyRequests, Code: CodeBusy, Message: err.Error(), RetryAfter: busy.RetryAfter}
	case errors.Is(err, memory.ErrUnavailable):
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Status: http.StatusGatewayTimeout, Code: CodeTimeout,
			Message: "the request took too long and was stopped; try a narrower request, or check `memctl status` for a busy daemon"}
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
}

func writeError(w http.ResponseWriter, e *Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(errorBody{Error: e})
}
