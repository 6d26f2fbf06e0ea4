package server

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/memd-dev/memd"
)

// GET /v1/names?query=…&folder=…&limit=… → memd.NamesResult
func names(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		limit, e := intParam(q, "limit")
		if e != nil {
			return e
		}
		offset, e := intParam(q, "offset")
		if e != nil {
			return e
		}
		req := memd.NamesRequest{Query: q.Get("query"), Folder: q.Get("folder"), Limit: limit, Offset: offset}
		if err := req.Validate(); err != nil {
			return err
		}
		res, err := svc.Names(r.Context(), req)
		return answer(w, res, err)
	}
}

// GET /v1/tags?prefix=…&folder=…&limit=… → memd.TagsResult
func tags(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		limit, e := intParam(q, "limit")
		if e != nil {
			return e
		}
		req := memd.TagsRequest{Prefix: q.Get("prefix"), Folder: q.Get("folder"), Limit: limit}
		if err := req.Validate(); err != nil {
			return err
		}
		res, err := svc.Tags(r.Context(), req)
		return answer(w, res, err)
	}
}

// GET /v1/backlinks?path=…&heading=… → memd.BacklinksResult
func backlinks(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		path, e := checkPath(memd.PathBody{Path: q.Get("path")})
		if e != nil {
			return e
		}
		res, err := svc.Backlinks(r.Context(), path, q.Get("heading"))
		return answer(w, res, err)
	}
}

// POST /v1/resolve, body memd.ResolveRequest → memd.ResolveResult
func resolve(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req memd.ResolveRequest
		if e := decodeBody(r, &req, false); e != nil {
			return e
		}
		if err := req.Validate(); err != nil {
			return err
		}
		if req.From != "" {
			req.From = filepath.Clean(req.From)
		}
		res, err := svc.Resolve(r.Context(), req)
		return answer(w, res, err)
	}
}

// GET /v1/notes/text?path=…&start=…&end=… → memd.NoteText
func noteText(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		path, e := checkPath(memd.PathBody{Path: q.Get("path")})
		if e != nil {
			return e
		}
		start, e := intParam(q, "start")
		if e != nil {
			return e
		}
		end, e := intParam(q, "end")
		if e != nil {
			return e
		}
		res, err := svc.NoteText(r.Context(), path, start, end)
		return answer(w, res, err)
	}
}

// answer writes a service's result, or returns its error to be answered.
func answer[T any](w http.ResponseWriter, v T, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// intParam reads an optional whole-number query parameter; absent is 0.
func intParam(q url.Values, name string) (int, *memd.Error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, memd.CodeBadRequest, "%q is %q; send a whole number, 0 or more", name, s)
	}
	return n, nil
}
