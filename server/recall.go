package server

import (
	"net/http"

	"github.com/memd-dev/memd"
)

// POST /v1/recall, body memd.RecallRequest → memd.RecallResult
func recall(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req memd.RecallRequest
		if e := decodeBody(r, &req, false); e != nil {
			return e
		}
		if err := req.Validate(); err != nil {
			return err
		}
		res, err := svc.Recall(r.Context(), req)
		if err != nil {
			return err
		}
		if res.Hits == nil {
			res.Hits = []memd.Hit{}
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}
