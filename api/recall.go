package api

import (
	"net/http"
	"path/filepath"
	"strings"

	"github.com/memd-dev/memd/memory"
)

// POST /v1/recall, body memory.RecallRequest → memory.RecallResult
func recall(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req memory.RecallRequest
		if e := decodeBody(r, &req, false); e != nil {
			return e
		}
		if e := checkRecall(&req); e != nil {
			return e
		}
		res, err := svc.Recall(r.Context(), req)
		if err != nil {
			return err
		}
		if res.Hits == nil {
			res.Hits = []memory.Hit{}
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// checkRecall refuses what no service could answer, with the field named.
func checkRecall(req *memory.RecallRequest) *Error {
	if strings.TrimSpace(req.Query) == "" {
		return errorf(http.StatusBadRequest, CodeBadRequest, `"query" is empty; send {"query":"what you are looking for"}`)
	}
	if req.K < 0 || req.K > memory.MaxK {
		return errorf(http.StatusBadRequest, CodeBadRequest, `"k" is %d; send a number from 1 to %d, or leave it out for %d`,
			req.K, memory.MaxK, memory.DefaultK)
	}
	f := &req.Filters
	for name, p := range map[string]*string{"filters.folder": &f.Folder, "filters.path_prefix": &f.PathPrefix} {
		if *p == "" {
			continue
		}
		if !filepath.IsAbs(*p) {
			return errorf(http.StatusBadRequest, CodeBadRequest, "%q is %q, a relative path; send an absolute path", name, *p)
		}
	}
	if !f.ModifiedAfter.IsZero() && !f.ModifiedBefore.IsZero() && !f.ModifiedAfter.Before(f.ModifiedBefore) {
		return errorf(http.StatusBadRequest, CodeBadRequest,
			`"filters.modified_after" (%s) is not before "filters.modified_before" (%s); no note can match`,
			f.ModifiedAfter.Format("2006-01-02T15:04:05Z07:00"), f.ModifiedBefore.Format("2006-01-02T15:04:05Z07:00"))
	}
	return nil
}
