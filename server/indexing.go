package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/memd-dev/memd"
)

// reindexAnswerWithin is how long POST /v1/reindex waits for the reindex
// to finish queueing before it answers 202 and lets it go on: under load
// queueing took 34s, past the request timeout, and a 500 was logged for a
// client long gone. A refusal (an unknown folder) comes within it.
const reindexAnswerWithin = 200 * time.Millisecond

// POST /v1/reindex, body optional {"path":…} (a note or folder; none means
// every folder) → {"queued":N}, or 202 {"queued":0,"started":true} when
// the reindex is still queueing notes after reindexAnswerWithin.
func reindex(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		path, e := readPath(r, true)
		if e != nil {
			return e
		}
		run := s.startReindex(path)
		select {
		case <-run.done:
			if run.err != nil {
				return run.err
			}
			writeJSON(w, http.StatusOK, memd.ReindexResult{Queued: run.queued})
		case <-time.After(reindexAnswerWithin):
			writeJSON(w, http.StatusAccepted, memd.ReindexResult{Started: true})
		case <-r.Context().Done():
			// The client has gone; the reindex goes on.
		}
		return nil
	}
}

// reindexRun is one reindex running apart from the request that asked
// for it; done is closed when queued and err are set.
type reindexRun struct {
	done   chan struct{}
	queued int
	err    error
}

// startReindex starts reindexing path in the background, or returns the
// run already under way for it. The run ends with the server: Shutdown
// cancels it and waits for it.
func (s *Server) startReindex(path string) *reindexRun {
	s.reindexMu.Lock()
	defer s.reindexMu.Unlock()
	if run, ok := s.reindexing[path]; ok {
		return run
	}
	run := &reindexRun{done: make(chan struct{})}
	s.reindexing[path] = run
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		ctx, cancel := s.untilStop(context.Background())
		defer cancel()
		run.queued, run.err = s.svc.Reindex(ctx, path)
		s.reindexMu.Lock()
		delete(s.reindexing, path)
		s.reindexMu.Unlock()
		close(run.done)
		// A failure of memd's (not a refusal) is logged here, as the
		// request that started the run may have been answered already.
		if run.err != nil && ctx.Err() == nil && asError(run.err).Status >= 500 {
			s.log.Warn("reindex", "path", path, "err", run.err)
		}
	}()
	return run
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

// POST /v1/compact → memd.CompactResult. Writes wait while it runs; reads
// go on.
func compact(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, err := svc.Compact(r.Context())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}
