package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"
)

// Options tune a Server. The zero value is what the daemon uses.
type Options struct {
	// Logger receives one debug line per request and warnings for failed
	// ones; nil means slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes caps a request body; zero means 1 MiB.
	MaxBodyBytes int64
	// RequestTimeout bounds every route that does not stream; zero means 30s.
	RequestTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's headers; zero means 5s.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a request's body, on every route, the
	// streaming ones included; zero means 10s. A client that sends its
	// body slower gets 408.
	BodyTimeout time.Duration
	// Heartbeat is how often an idle event stream gets a comment line, so
	// clients and proxies can tell a quiet stream from a dead one; zero
	// means 15s.
	Heartbeat time.Duration
	// MaxWait caps the long poll of /v1/idle; zero means 10 minutes.
	MaxWait time.Duration
	// ChatTimeout bounds one chat, streamed or not; zero means 10 minutes.
	ChatTimeout time.Duration
	// MaxFrameBytes caps one websocket message from a client; a larger one
	// closes that connection. Zero means 1 MiB.
	MaxFrameBytes int64
	// WSQueue is how many messages may wait to be written to one websocket
	// client; a client that falls further behind is dropped. Zero means 1024.
	WSQueue int
	// WSRequests is how many requests one websocket connection may have in
	// flight; zero means 32.
	WSRequests int
	// RecallInFlight is how many recalls run at once (HTTP and websocket
	// together); zero means 4 per CPU. RecallQueue is how many more may
	// wait, at most RecallWait, for a turn; zero means 64 and 2s. Past
	// those, a recall gets 429 with Retry-After.
	RecallInFlight int
	RecallQueue    int
	RecallWait     time.Duration
	// AllowedOrigins are the websocket Origins accepted, exactly as a
	// browser sends them ("http://localhost:3000"). Clients that send no
	// Origin (everything but browsers) are always accepted; the default
	// accepts no browser page.
	AllowedOrigins []string
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.ReadHeaderTimeout == 0 {
		o.ReadHeaderTimeout = 5 * time.Second
	}
	if o.BodyTimeout == 0 {
		o.BodyTimeout = 10 * time.Second
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxWait == 0 {
		o.MaxWait = 10 * time.Minute
	}
	if o.ChatTimeout == 0 {
		o.ChatTimeout = 10 * time.Minute
	}
	if o.MaxFrameBytes == 0 {
		o.MaxFrameBytes = 1 << 20
	}
	if o.WSQueue == 0 {
		o.WSQueue = 1024
	}
	if o.WSRequests == 0 {
		o.WSRequests = 32
	}
	if o.RecallInFlight == 0 {
		o.RecallInFlight = max(4, 4*runtime.GOMAXPROCS(0))
	}
	if o.RecallQueue == 0 {
		o.RecallQueue = 64
	}
	if o.RecallWait == 0 {
		o.RecallWait = 2 * time.Second
	}
	return o
}

// Server answers memd's HTTP API from a Service. Serve it on a listener from
// Listen; only processes of the daemon's own user are answered.
type Server struct {
	svc      Service
	opt      Options
	log      *slog.Logger
	http     *http.Server
	uid      int           // the one peer uid served
	stopping chan struct{} // closed by Shutdown: ends streams and long polls
	stopOnce sync.Once
	wsMu     sync.Mutex     // orders wsConns.Add before Shutdown's Wait
	wsConns  sync.WaitGroup // websocket connections being served

	tcpMu sync.Mutex
	tcp   *http.Server // the loopback TCP listener's server, nil when off

	// background counts work that outlives its request (a reindex);
	// Shutdown waits for it.
	background sync.WaitGroup
	reindexMu  sync.Mutex
	reindexing map[string]*reindexRun // by path, "" for every folder

	recalls *admission
}

// NewServer returns a Server over svc.
func NewServer(svc Service, o Options) *Server {
	o = o.withDefaults()
	s := &Server{svc: svc, opt: o, log: o.Logger, uid: os.Getuid(), stopping: make(chan struct{}),
		reindexing: map[string]*reindexRun{}, recalls: newAdmission("recalls", o.RecallInFlight, o.RecallQueue, o.RecallWait)}
	s.http = &http.Server{
		Handler:           s.checkPeer(s.Handler()),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       withPeer,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	return s
}

// Serve answers requests on l until Shutdown. It returns nil after a
// Shutdown and the listener's error otherwise. Serve closes l.
func (s *Server) Serve(l net.Listener) error {
	err := s.http.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections, ends event streams and long polls,
// and waits for other requests in flight until ctx ends; then it closes
// what is left. It is safe to call more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stopping) })
	s.tcpMu.Lock()
	tcp := s.tcp
	s.tcpMu.Unlock()
	var tcpErr error
	if tcp != nil {
		if tcpErr = tcp.Shutdown(ctx); tcpErr != nil {
			_ = tcp.Close()
		}
	}
	err := s.http.Shutdown(ctx)
	if err != nil {
		_ = s.http.Close()
	}
	s.wsMu.Lock() // no connection is added once this is passed
	s.wsMu.Unlock()
	waited := make(chan struct{})
	go func() {
		s.wsConns.Wait()
		s.background.Wait()
		close(waited)
	}()
	select {
	case <-waited:
	case <-ctx.Done():
		err = errors.Join(err, ctx.Err())
	}
	return errors.Join(err, tcpErr)
}

// untilStop returns a context that also ends when the server shuts down, for
// handlers that would otherwise hold a connection open past Shutdown.
func (s *Server) untilStop(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
