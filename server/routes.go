package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/memd-dev/memd"
)

// handlerFunc answers a request, or returns the error to answer with. An
// *Error is sent as it is; other errors are classified by asError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (f handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); err != nil {
		writeError(w, asError(err))
	}
}

// methods routes one path by method and answers 405, with Allow, for the rest.
type methods map[string]http.Handler

func (m methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := m[r.Method]; ok {
		h.ServeHTTP(w, r)
		return
	}
	allow := m.allowed()
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, errorf(http.StatusMethodNotAllowed, memd.CodeMethodNotAllowed,
		"%s does not take %s; use %s", r.URL.Path, r.Method, strings.Join(allow, " or ")))
}

func (m methods) allowed() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Handler returns the API's routes with their limits, without the peer
// check that Serve adds. Tests and in-process callers use it directly.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	routes := map[string]methods{
		memd.RouteStatus:  {"GET": s.timed(status(s.svc))},
		memd.RouteRecall:  {"POST": s.timed(recall(s))},
		memd.RouteFolders: {"GET": s.timed(listFolders(s.svc)), "POST": s.timed(addFolder(s.svc)), "DELETE": s.timed(removeFolder(s.svc))},
		memd.RouteNotes:   {"GET": s.timed(note(s.svc)), "DELETE": s.timed(forget(s.svc))},
		memd.RouteReindex: {"POST": s.timed(reindex(s))},
		memd.RouteCompact: {"POST": compact(s.svc)},
		memd.RouteSkips:   {"GET": s.timed(skips(s.svc))},
		memd.RouteIdle:    {"GET": idle(s)},
		memd.RouteEvents:  {"GET": events(s)},

		memd.RouteNoteText:  {"GET": s.timed(noteText(s.svc))},
		memd.RouteNames:     {"GET": s.timed(names(s.svc))},
		memd.RouteTags:      {"GET": s.timed(tags(s.svc))},
		memd.RouteBacklinks: {"GET": s.timed(backlinks(s.svc))},
		memd.RouteResolve:   {"POST": s.timed(resolve(s.svc))},

		memd.RouteChat:            {"POST": chat(s)},
		memd.RouteChatCompletions: {"POST": chatCompletions(s)},
		memd.RouteCompletions:     {"POST": completions(s)},
		memd.RouteEmbeddings:      {"POST": s.timed(embeddings(s.svc))},
		memd.RouteModels:          {"GET": s.timed(models(s.svc))},
		memd.RouteModels + "/":    {"GET": s.timed(models(s.svc))},
		memd.RouteWS:              {"GET": websocketRPC(s)},
	}
	var paths []string
	for p, m := range routes {
		mux.Handle(p, m)
		paths = append(paths, p)
	}
	slices.Sort(paths)
	mux.Handle("/", notFound(paths))
	return s.observe(s.limitBody(mux))
}

func notFound(paths []string) http.Handler {
	list := strings.Join(paths, ", ")
	return handlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, memd.CodeNotFound, "no route %s %s; memd answers %s", r.Method, r.URL.Path, list)
	})
}

// timed bounds a route that does not stream: its context ends after the
// request timeout, and a client that stops reading cannot hold the handler.
// (The body's own deadline is limitBody's.)
func (s *Server) timed(h http.Handler) http.Handler {
	d := s.opt.RequestTimeout
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Now().Add(d + time.Second))
		// The connection may be kept alive for another request: lift the
		// deadlines so they do not carry over to it.
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// limitBody caps every request body in size and in time: the body must
// arrive within BodyTimeout (a client sending a byte a second held a chat
// route for as long as it liked). Once the body has been read the read
// deadline is lifted, so a long answer streamed after it is not cut.
func (s *Server) limitBody(h http.Handler) http.Handler {
	max := s.opt.MaxBodyBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			writeError(w, errorf(http.StatusRequestEntityTooLarge, memd.CodeTooLarge,
				"the request body is %d bytes, over the limit of %d; send a smaller request", r.ContentLength, max))
			return
		}
		rc := http.NewResponseController(w)
		if r.Body != http.NoBody && rc.SetReadDeadline(time.Now().Add(s.opt.BodyTimeout)) == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, w: w, rc: rc}
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline when the body has
// been read to its end: net/http then reads the connection in the
// background to notice a client that goes away, and a deadline left set
// would end that read, and the request's context with it. A body that
// times out closes the connection after the answer, or net/http would
// wait for the rest of it before answering.
type deadlineBody struct {
	io.ReadCloser
	w      http.ResponseWriter
	rc     *http.ResponseController
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) && !b.lifted:
		b.lifted = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.As(err, &ne) && ne.Timeout():
		b.w.Header().Set("Connection", "close")
	}
	return n, err
}

// observe logs each request and turns a panic in a handler into a 500
// answer, so one bad request does not take the connection's other work down.
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", v)
				if !sw.wrote {
					writeError(sw, errorf(http.StatusInternalServerError, memd.CodeInternal,
						"memd hit a bug answering %s %s (%v); please report it", r.Method, r.URL.Path, v))
				}
			}
			// A failure is worth a warning unless the client had gone:
			// then it is the client's leaving, not memd's failing.
			level := slog.LevelDebug
			if sw.status >= 500 && r.Context().Err() == nil {
				level = slog.LevelWarn
			}
			s.log.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path,
				"status", sw.status, "took", time.Since(start).Round(time.Microsecond))
		}()
		h.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status sent. Unwrap lets http.ResponseController
// reach the connection underneath for flushes and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
