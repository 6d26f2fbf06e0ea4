package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/memd-dev/memd"
)

// POST /v1/recall, body memd.RecallRequest → memd.RecallResult
func recall(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req memd.RecallRequest
		if e := decodeBody(r, &req, false); e != nil {
			return e
		}
		if err := req.Validate(); err != nil {
			return err
		}
		body, err := s.admittedRecall(r.Context(), req)
		if err != nil {
			return err
		}
		writeBody(w, http.StatusOK, body)
		return nil
	}
}

// admittedRecall runs a recall in its turn and encodes the answer before
// giving the turn back: the turn bounds the work and the memory of
// recalls under way, and a client slow to read its answer must not hold
// one while the answer is written.
func (s *Server) admittedRecall(ctx context.Context, req memd.RecallRequest) ([]byte, error) {
	leave, err := s.recalls.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	res, err := s.svc.Recall(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Hits == nil {
		res.Hits = []memd.Hit{}
	}
	body, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode answer: %w", err)
	}
	return append(body, '\n'), nil
}
