package server

import (
	"net/http"

	"github.com/memd-dev/memd"
)

// POST /v1/chat, body memd.ChatBody → memd.ChatResult, or with "stream": true
// an event stream of sources, delta… and done. Errors found before the
// answer starts (no generator, busy, a bad request) are HTTP errors; later
// ones are an error event.
func chat(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var body memd.ChatBody
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
		st, res, err := s.streamChat(ctx, w, body.ChatRequest, memd.ChatError, func(st *sseStream, ev memd.ChatEvent) error {
			if ev.Type == memd.ChatSources {
				return st.event(memd.ChatSources, memd.SourcesEvent{Sources: ev.Sources})
			}
			return st.event(memd.ChatDelta, memd.DeltaEvent{Text: ev.Delta})
		})
		if st == nil {
			return err
		}
		defer st.end()
		_ = st.event(memd.ChatDone, res)
		return nil
	}
}
