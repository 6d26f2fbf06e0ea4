package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/memd-dev/memd"
)

// sseStream writes one server-sent event stream. Each write has its own
// deadline, so a client that stops reading loses its stream (and its chat)
// instead of holding the handler.
type sseStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE sends the stream's headers. Nothing can change the status once
// it has returned.
func startSSE(w http.ResponseWriter) (*sseStream, error) {
	rc := http.NewResponseController(w)
	if err := rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout)); errors.Is(err, http.ErrNotSupported) {
		return nil, fmt.Errorf("event stream: this connection cannot stream: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseStream{w: w, rc: rc}, nil
}

// event sends "event: name" with v as its JSON data; an empty name sends
// data alone, as the OpenAI streams do.
func (s *sseStream) event(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	if name == "" {
		return s.raw(fmt.Appendf(nil, "data: %s\n\n", data))
	}
	return s.raw(fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data))
}

// raw sends bytes that already are whole events and flushes them.
func (s *sseStream) raw(frame []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if _, err := s.w.Write(frame); err != nil {
		return err
	}
	return s.rc.Flush()
}

// end lifts the write deadline for a connection kept alive for another
// request.
func (s *sseStream) end() { _ = s.rc.SetWriteDeadline(time.Time{}) }

// chatContext bounds a chat by the chat timeout and ends it when the
// server shuts down. A client that goes away ends it too: r.Context() ends
// when the connection closes.
func (s *Server) chatContext(w http.ResponseWriter, r *http.Request) (context.Context, context.CancelFunc) {
	// The body is read; a read deadline left on the connection would end
	// the request's context when it passes.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	ctx, cancel := context.WithTimeout(r.Context(), s.opt.ChatTimeout)
	ctx, stop := s.untilStop(ctx)
	return ctx, func() { stop(); cancel() }
}

// chatError names why a chat ended early when its context did.
func (s *Server) chatError(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	select {
	case <-s.stopping:
		return fmt.Errorf("%w: memd is shutting down; the answer was cut off", memd.ErrUnavailable)
	default:
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &memd.Error{Status: http.StatusGatewayTimeout, Code: memd.CodeTimeout,
			Message: fmt.Sprintf("the chat took longer than %v and was stopped; ask for fewer tokens", s.opt.ChatTimeout)}
	}
	return err
}

// streamChat runs a chat whose events emit writes to an event stream that
// opens at the first event. A chat that fails before any event gets a plain
// HTTP error instead (returned); one that fails later ends its stream with
// an errorEvent event. The stream comes back, open, only when the chat
// succeeded; otherwise it is nil and the handler is done.
func (s *Server) streamChat(ctx context.Context, w http.ResponseWriter, req memd.ChatRequest, errorEvent string,
	emit func(*sseStream, memd.ChatEvent) error) (*sseStream, memd.ChatResult, error) {
	var st *sseStream
	sink := func(ev memd.ChatEvent) error {
		if st == nil {
			var err error
			if st, err = startSSE(w); err != nil {
				return err
			}
		}
		return emit(st, ev)
	}
	res, err := s.svc.Chat(ctx, req, sink)
	if st == nil {
		if err != nil {
			return nil, res, s.chatError(ctx, err)
		}
		if st, err = startSSE(w); err != nil {
			return nil, res, err
		}
	}
	if err != nil {
		_ = st.event(errorEvent, memd.ErrorBody{Error: asError(s.chatError(ctx, err))})
		st.end()
		return nil, res, nil
	}
	return st, res, nil
}
