package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/memd-dev/memd/memory"
)

// GET /v1/names?query=…&folder=…&limit=… → memory.NamesResult
func names(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		limit, e := intParam(q, "limit")
		if e != nil {
			return e
		}
		folder, e := optionalAbsPath(q, "folder")
		if e != nil {
			return e
		}
		res, err := svc.Names(r.Context(), memory.NamesRequest{Query: q.Get("query"), Folder: folder, Limit: limit})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// GET /v1/tags?prefix=…&folder=…&limit=… → memory.TagsResult
func tags(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		limit, e := intParam(q, "limit")
		if e != nil {
			return e
		}
		folder, e := optionalAbsPath(q, "folder")
		if e != nil {
			return e
		}
		res, err := svc.Tags(r.Context(), memory.TagsRequest{Prefix: q.Get("prefix"), Folder: folder, Limit: limit})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// GET /v1/backlinks?path=…&heading=… → memory.BacklinksResult
func backlinks(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		path, e := absPath(q.Get("path"))
		if e != nil {
			return e
		}
		res, err := svc.Backlinks(r.Context(), path, q.Get("heading"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// POST /v1/resolve, body memory.ResolveRequest → memory.ResolveResult
func resolve(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req memory.ResolveRequest
		if e := decodeBody(r, &req, false); e != nil {
			return e
		}
		if req.From != "" {
			from, e := absPath(req.From)
			if e != nil {
				return e
			}
			req.From = from
		}
		res, err := svc.Resolve(r.Context(), req)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// GET /v1/notes/text?path=…&start=…&end=… → memory.NoteText
func noteText(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		path, e := absPath(q.Get("path"))
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
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// intParam reads an optional whole-number query parameter; absent is 0.
func intParam(q url.Values, name string) (int, *Error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, "%q is %q; send a whole number, 0 or more", name, s)
	}
	return n, nil
}

// optionalAbsPath reads a query parameter that is absent or an absolute path.
func optionalAbsPath(q url.Values, name string) (string, *Error) {
	if q.Get(name) == "" {
		return "", nil
	}
	return absPath(q.Get(name))
}
