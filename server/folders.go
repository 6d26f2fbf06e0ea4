package server

import (
	"net/http"

	"github.com/memd-dev/memd"
)

// GET /v1/folders → {"folders":[…]}
func listFolders(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := svc.Folders(r.Context())
		if err != nil {
			return err
		}
		if list == nil {
			list = []memd.FolderStatus{}
		}
		writeJSON(w, http.StatusOK, memd.FolderList{Folders: list})
		return nil
	}
}

// POST /v1/folders, body {"path":…} → memd.FolderStatus
func addFolder(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := readPath(r, false)
		if e != nil {
			return e
		}
		f, err := svc.AddFolder(r.Context(), path)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, f)
		return nil
	}
}

// DELETE /v1/folders, body {"path":…} → {"path":…,"removed":true}
func removeFolder(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := readPath(r, false)
		if e != nil {
			return e
		}
		if err := svc.RemoveFolder(r.Context(), path); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, memd.Removed{Path: path, Removed: true})
		return nil
	}
}
