package api

import (
	"net/http"

	"github.com/memd-dev/memd/memory"
)

// GET /v1/status → memory.Status
func status(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		st, err := svc.Status(r.Context())
		if err != nil {
			return err
		}
		if st.Folders == nil {
			st.Folders = []memory.FolderStatus{}
		}
		if st.Models == nil {
			st.Models = []memory.ModelStatus{}
		}
		writeJSON(w, http.StatusOK, st)
		return nil
	}
}

// skipList is the answer of GET /v1/skips.
type skipList struct {
	Skips []memory.Skip `json:"skips"`
}

// GET /v1/skips → {"skips":[…]}
func skips(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := svc.Skips(r.Context())
		if err != nil {
			return err
		}
		if list == nil {
			list = []memory.Skip{}
		}
		writeJSON(w, http.StatusOK, skipList{Skips: list})
		return nil
	}
}
