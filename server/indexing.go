package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/memd-dev/memd"
)

// POST /v1/reindex, body optional {"path":…} (a note or folder; none means
// every folder) → {"queued":N}
func reindex(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := readPath(r, true)
		if e != nil {
			return e
		}
		n, err := svc.Reindex(r.Context(), path)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, memd.ReindexResult{Queued: n})
		return nil
	}
}

// GET /v1/idle?timeout=30s is a long poll: it answers {"idle":true} once no
// indexing work is pending, or {"idle":false} when the timeout (default 30s,
// at most Options.MaxWait) passes first.
func idle(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		wait := 30 * time.Second
		if v := r.URL.Query().Get("timeout"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return errorf(http.StatusBadRequest, memd.CodeBadRequest,
					"timeout %q is not a duration; send for example ?timeout=30s", v)
			}
			wait = d
		}
		wait = min(wait, s.opt.MaxWait)
		ctx, cancel := s.untilStop(r.Context())
		defer cancel()
		ctx, cancelWait := context.WithTimeout(ctx, wait)
		defer cancelWait()
		err := s.svc.WaitIdle(ctx)
		select {
		case <-s.stopping:
			return errorf(http.StatusServiceUnavailable, memd.CodeUnavailable, "memd is shutting down")
		default:
		}
		if errors.Is(err, context.DeadlineExceeded) {
			writeJSON(w, http.StatusOK, memd.IdleResult{Idle: false})
			return nil
		}
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, memd.IdleResult{Idle: true})
		return nil
	}
}
