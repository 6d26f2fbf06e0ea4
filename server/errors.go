package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/memd-dev/memd"
)

// errorf is the answer status with code and a message made from format.
func errorf(status int, code, format string, args ...any) *memd.Error {
	return &memd.Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// asError turns an error from the service into the answer the client sees.
// Errors of no known kind are internal: the message is kept, since the only
// reader is the user who owns the daemon.
func asError(err error) *memd.Error {
	var (
		e    *memd.Error
		busy *memd.BusyError
	)
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, memd.ErrUnknownFolder):
		return &memd.Error{Status: http.StatusNotFound, Code: memd.CodeUnknownFolder, Message: err.Error()}
	case errors.Is(err, memd.ErrNotFound):
		return &memd.Error{Status: http.StatusNotFound, Code: memd.CodeNotFound, Message: err.Error()}
	case errors.Is(err, memd.ErrBadRequest):
		return &memd.Error{Status: http.StatusBadRequest, Code: memd.CodeBadRequest, Message: err.Error()}
	case errors.As(err, &busy):
		return &memd.Error{Status: http.StatusTooManyRequests, Code: memd.CodeBusy, Message: err.Error(), RetryAfter: busy.RetryAfter}
	case errors.Is(err, memd.ErrUnavailable):
		return &memd.Error{Status: http.StatusServiceUnavailable, Code: memd.CodeUnavailable, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &memd.Error{Status: http.StatusGatewayTimeout, Code: memd.CodeTimeout,
			Message: "the request took too long and was stopped; try a narrower request, or check `memctl status` for a busy daemon"}
	}
	return &memd.Error{Status: http.StatusInternalServerError, Code: memd.CodeInternal, Message: err.Error()}
}

func writeError(w http.ResponseWriter, e *memd.Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(memd.ErrorBody{Error: e})
}
