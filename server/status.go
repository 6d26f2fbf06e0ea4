package server

import (
	"net/http"

	"github.com/memd-dev/memd"
)

// GET /v1/status → memd.Status
func status(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		st, err := svc.Status(r.Context())
		if err != nil {
			return err
		}
		if st.Folders == nil {
			st.Folders = []memd.FolderStatus{}
		}
		if st.Models == nil {
			st.Models = []memd.ModelStatus{}
		}
		writeJSON(w, http.StatusOK, st)
		return nil
	}
}

// GET /v1/skips → {"skips":[…]}
func skips(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := svc.Skips(r.Context())
		if err != nil {
			return err
		}
		if list == nil {
			list = []memd.Skip{}
		}
		writeJSON(w, http.StatusOK, memd.SkipList{Skips: list})
		return nil
	}
}
