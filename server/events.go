package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// eventWriteTimeout bounds one write to an event stream, so a client that
// stops reading loses its stream instead of holding the handler forever.
const eventWriteTimeout = 10 * time.Second

// GET /v1/events is a server-sent event stream of index changes: one
// "event: <type>" and "data: <memd.Event JSON>" per change, and comment
// lines as heartbeats. It starts with a comment so a client knows it is
// subscribed, and ends when the client goes away or the server shuts down.
func events(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout)); errors.Is(err, http.ErrNotSupported) {
			return fmt.Errorf("event stream: this connection cannot stream: %w", err)
		}
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
		ctx, cancel := s.untilStop(r.Context())
		defer cancel()
		ch := s.svc.Subscribe(ctx)

		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		send := func(frame []byte) bool {
			_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
			if _, err := w.Write(frame); err != nil {
				return false
			}
			return rc.Flush() == nil
		}
		if !send([]byte(": memd events\n\n")) {
			return nil
		}
		beat := time.NewTicker(s.opt.Heartbeat)
		defer beat.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case ev, ok := <-ch:
				if !ok {
					return nil
				}
				data, err := json.Marshal(ev)
				if err != nil {
					s.log.Warn("encode event", "type", ev.Type, "err", err)
					continue
				}
				if !send(fmt.Appendf(nil, "event: %s\ndata: %s\n\n", sanitizeEventName(ev.Type), data)) {
					return nil
				}
			case <-beat.C:
				if !send([]byte(": ping\n\n")) {
					return nil
				}
			}
		}
	}
}

// sanitizeEventName keeps an event name on one line of the stream.
func sanitizeEventName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	if len(b) == 0 {
		return "message"
	}
	return string(b)
}
