package server

import (
	"net/http"

	"github.com/memd-dev/memd"
)

// GET /v1/notes?path=… → memd.NoteDetail
func note(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := checkPath(memd.PathBody{Path: r.URL.Query().Get("path")})
		if e != nil {
			return e
		}
		d, err := svc.Note(r.Context(), path)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, d)
		return nil
	}
}

// DELETE /v1/notes, body {"path":…} → {"path":…,"removed":true}. The note
// leaves the index and stays out until its file changes.
func forget(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := readPath(r, false)
		if e != nil {
			return e
		}
		if err := svc.Forget(r.Context(), path); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, memd.Removed{Path: path, Removed: true})
		return nil
	}
}
