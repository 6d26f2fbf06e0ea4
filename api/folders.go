package api

import (
	"net/http"

	"github.com/memd-dev/memd/memory"
)

// folderList is the answer of GET /v1/folders.
type folderList struct {
	Folders []memory.FolderStatus `json:"folders"`
}

// removed is the answer of the routes that delete something by path.
type removed struct {
	Path    string `json:"path"`
	Removed bool   `json:"removed"`
}

// GET /v1/folders → {"folders":[…]}
func listFolders(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := svc.Folders(r.Context())
		if err != nil {
			return err
		}
		if list == nil {
			list = []memory.FolderStatus{}
		}
		writeJSON(w, http.StatusOK, folderList{Folders: list})
		return nil
	}
}

// POST /v1/folders, body {"path":…} → memory.FolderStatus
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
		writeJSON(w, http.StatusOK, removed{Path: path, Removed: true})
		return nil
	}
}
