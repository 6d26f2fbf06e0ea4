package api

import (
	"net/http"

	"github.com/memd-dev/memd/memory"
)

// chatBody is the body of POST /v1/chat: a memory.ChatRequest, streamed
// as server-sent events when Stream is set.
type chatBody struct {
	memory.ChatRequest
	Stream bool `json:"stream,omitempty"`
}

// The data of the /v1/chat stream's events.
type (
	sourcesEvent struct {
		Sources []memory.Source `json:"sources"`
	}
	deltaEvent struct {
		Text string `json:"text"`
	}
)

// SSE event names of POST /v1/chat with "stream": true, in the order they
// come: one sources, any number of delta, then done (the whole
// memory.ChatResult) or error (memd's error body).
const (
	EventSources = "sources"
	EventDelta   = "delta"
	EventDone    = "done"
	EventError   = "error"
)

// POST /v1/chat, body chatBody → memory.ChatResult, or with "stream": true
// an event stream of sources, delta… and done. Errors found before the
// answer starts (no generator, busy, a bad request) are HTTP errors; later
// ones are an error event.
func chat(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body chatBody
		if e := decodeBody(r, &body, false); e != nil {
			return e
		}
		ctx, cancel := s.chatContext(w, r)
		defer cancel()
		if !body.Stream {
			res, err := s.svc.Chat(ctx, body.ChatRequest, nil)
			if err != nil {
				return s.chatError(ctx, err)
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		}
		st, res, err := s.streamChat(ctx, w, body.ChatRequest, EventError, func(st *sseStream, ev memory.ChatEvent) error {
			if ev.Type == memory.ChatSources {
				return st.event(EventSources, sourcesEvent{Sources: ev.Sources})
			}
			return st.event(EventDelta, deltaEvent{Text: ev.Delta})
		})
		if st == nil {
			return err
		}
		defer st.end()
		_ = st.event(EventDone, res)
		return nil
	}
}
