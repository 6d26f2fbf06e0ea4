package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memd-dev/memd"
)

// decodeBody reads one JSON value from the request body into v. Unknown
// fields are refused so that a typo in a field name is an error, not a
// silently ignored filter. With optional, an empty body leaves v as it is.
func decodeBody(r *http.Request, v any, optional bool) *memd.Error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		if optional {
			return nil
		}
		return errorf(http.StatusBadRequest, memd.CodeBadRequest, "the request body is empty; send a JSON object")
	}
	if err == nil {
		if dec.More() {
			return errorf(http.StatusBadRequest, memd.CodeBadRequest, "the request body holds more than one JSON value; send exactly one object")
		}
		if _, err = dec.Token(); err != nil && !errors.Is(err, io.EOF) {
			return jsonError(err)
		}
		return nil
	}
	return jsonError(err)
}

func jsonError(err error) *memd.Error {
	var (
		tooLarge *http.MaxBytesError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		netErr   net.Error
	)
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		return errorf(http.StatusRequestTimeout, memd.CodeTimeout,
			"the request body did not arrive in time; send the whole body at once")
	case errors.As(err, &tooLarge):
		return errorf(http.StatusRequestEntityTooLarge, memd.CodeTooLarge,
			"the request body is over %d bytes; send a smaller request", tooLarge.Limit)
	case errors.As(err, &syntax):
		return errorf(http.StatusBadRequest, memd.CodeBadRequest,
			"the request body is not valid JSON at byte %d: %v", syntax.Offset, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, memd.CodeBadRequest, "the request body ends in the middle of a JSON value")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return errorf(http.StatusBadRequest, memd.CodeBadRequest,
				"the request body must be a JSON object, not a JSON %s", typ.Value)
		}
		return errorf(http.StatusBadRequest, memd.CodeBadRequest,
			"field %q must be %s, not a JSON %s", field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(http.StatusBadRequest, memd.CodeBadRequest,
			"the request body has %s; see the API in the README for the fields each route takes",
			strings.TrimPrefix(err.Error(), "json: "))
	}
	return errorf(http.StatusBadRequest, memd.CodeBadRequest, "the request body could not be read as JSON: %v", err)
}

// jsonKind names a Go kind the way a JSON writer thinks of it.
func jsonKind(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "true or false"
	case kind == "slice", kind == "array":
		return "an array"
	case kind == "struct", kind == "map":
		return "an object"
	}
	return "a " + kind
}

// readPath decodes {"path":…} and checks the path. With optional, an empty
// body or an empty path gives "".
func readPath(r *http.Request, optional bool) (string, *memd.Error) {
	var b memd.PathBody
	if e := decodeBody(r, &b, optional); e != nil {
		return "", e
	}
	if optional && b.Path == "" {
		return "", nil
	}
	return checkPath(b)
}

// checkPath is b's path, cleaned, once b.Validate passes.
func checkPath(b memd.PathBody) (string, *memd.Error) {
	if err := b.Validate(); err != nil {
		return "", asError(err)
	}
	return filepath.Clean(b.Path), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, asError(fmt.Errorf("encode answer: %w", err)))
		return
	}
	writeBody(w, status, append(body, '\n'))
}

// writeBody sends a JSON answer with its length: net/http frames a body
// over 2 KiB without one as chunked, which the client must then undo
// (a recall's answer on SciFact is some 6 KB).
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
