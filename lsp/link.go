package lsp

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/memd-dev/memd/api"
)

// connectTimeout bounds one try to reach (and start) memd; retryAfter is
// how long a failed try holds off the next.
const (
	connectTimeout = 15 * time.Second
	retryAfter     = 10 * time.Second
)

// link is the server's way to memd. It connects in the background, starts
// memd when it is down (through Options.Connect), and says once, in the
// editor's message area, what is wrong, until memd answers again.
type link struct {
	connect func(context.Context) (Memory, error)
	show    func(typ int, msg string)
	log     *slog.Logger
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu      sync.Mutex
	mem     Memory
	trying  chan struct{} // closed when the try under way ends; nil when none is
	lastTry time.Time
	warned  bool
}

func newLink(connect func(context.Context) (Memory, error), show func(int, string), log *slog.Logger) *link {
	ctx, cancel := context.WithCancel(context.Background())
	return &link{connect: connect, show: show, log: log, ctx: ctx, cancel: cancel}
}

// start begins connecting, if no try is under way or recent.
func (l *link) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.startLocked(false)
}

func (l *link) startLocked(force bool) chan struct{} {
	if l.mem != nil || l.trying != nil {
		return l.trying
	}
	if !force && !l.lastTry.IsZero() && time.Since(l.lastTry) < retryAfter {
		return nil
	}
	l.lastTry = time.Now()
	done := make(chan struct{})
	l.trying = done
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		ctx, cancel := context.WithTimeout(l.ctx, connectTimeout)
		mem, err := l.connect(ctx)
		cancel()
		l.mu.Lock()
		l.trying = nil
		if err == nil {
			l.mem, l.warned = mem, false
		}
		l.mu.Unlock()
		close(done)
		if err != nil && l.ctx.Err() == nil {
			l.fail(err)
		}
	}()
	return done
}

// get returns a client of memd, waiting for a connection under way until
// ctx ends; nil when memd cannot be reached now.
func (l *link) get(ctx context.Context) Memory {
	l.mu.Lock()
	mem, done := l.mem, l.startLocked(false)
	l.mu.Unlock()
	if mem != nil || done == nil {
		return mem
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mem
}

// failed notes an error from a call to memd: a daemon that went away is
// dropped, so the next request connects (and starts memd) again.
func (l *link) failed(mem Memory, err error) {
	if err == nil || !errors.Is(err, api.ErrNotRunning) {
		return
	}
	l.mu.Lock()
	if l.mem == mem {
		l.mem, l.lastTry = nil, time.Time{}
	}
	l.mu.Unlock()
	l.fail(err)
}

// fail says what is wrong, once until memd answers again.
func (l *link) fail(err error) {
	l.log.Warn("memd cannot be reached", "err", err)
	l.mu.Lock()
	warned := l.warned
	l.warned = true
	l.mu.Unlock()
	if !warned {
		l.show(messageWarning, "memd: "+err.Error()+
			". Recall, links and completion from your notes are off until memd answers; `memctl status` says more.")
	}
}

// close stops a try under way and waits for it.
func (l *link) close() {
	l.cancel()
	l.wg.Wait()
}
