package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd/server"
)

// listen returns the socket memd serves on: the one a service manager
// passed (socket activation: the socket exists before memd starts, so a
// client that connects early waits instead of failing), else a new one at
// path.
func listen(path string, log *slog.Logger) (net.Listener, error) {
	l, err := activatedListener()
	if err != nil || l != nil {
		if l != nil {
			log.Info("serving on the socket passed by the service manager", "socket", l.Addr().String())
		}
		return l, err
	}
	return server.Listen(path)
}

// daemonSocket is the daemon's listening socket, taken by the first serve
// and kept open across the serves that follow a damaged store's rebuild:
// a socket the service manager passed cannot be taken twice (its LISTEN_*
// are cleared and its descriptor closed with it), and clients waiting in
// its backlog must be answered by the rebuilt daemon.
type daemonSocket struct {
	l       *net.UnixListener
	stopped atomic.Bool // the serve now using l has stopped accepting
}

// take returns the socket for one serve, listening on path first if no
// serve has yet. Closing what it returns ends that serve's Accept and
// keeps the socket open for the next.
func (s *daemonSocket) take(path string, log *slog.Logger) (net.Listener, error) {
	if s.l == nil {
		l, err := listen(path, log)
		if err != nil {
			return nil, err
		}
		s.l = l.(*net.UnixListener) // listen takes only unix sockets
	}
	s.stopped.Store(false)
	if err := s.l.SetDeadline(time.Time{}); err != nil {
		return nil, err
	}
	return servedSocket{s}, nil
}

// Close closes the socket for good.
func (s *daemonSocket) Close() error {
	if s.l == nil {
		return nil
	}
	return s.l.Close()
}

// servedSocket is a daemonSocket as one serve uses it: Close only wakes
// its Accept, by a deadline in the past.
type servedSocket struct{ s *daemonSocket }

func (v servedSocket) Accept() (net.Conn, error) {
	c, err := v.s.l.Accept()
	if err != nil && v.s.stopped.Load() {
		return nil, net.ErrClosed
	}
	return c, err
}

func (v servedSocket) Close() error {
	v.s.stopped.Store(true)
	return v.s.l.SetDeadline(time.Now())
}

func (v servedSocket) Addr() net.Addr { return v.s.l.Addr() }

// firstActivatedFD is where sd_listen_fds(3) puts the first passed socket.
const firstActivatedFD = 3

// activatedListener returns the listening socket passed by socket
// activation the way systemd passes it (sd_listen_fds(3)): LISTEN_PID names
// this process and LISTEN_FDS counts descriptors from 3. It is nil when
// none was passed to this process.
func activatedListener() (net.Listener, error) {
	pid, fds := os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS")
	// Whatever they say, they are not for processes memd starts.
	os.Unsetenv("LISTEN_PID")
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_FDNAMES")
	if pid == "" || fds == "" || pid != strconv.Itoa(os.Getpid()) {
		return nil, nil
	}
	n, err := strconv.Atoi(fds)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("LISTEN_FDS=%q is not a count of sockets; check memd's socket unit", fds)
	}
	if n > 1 {
		return nil, fmt.Errorf("the service manager passed %d sockets and memd serves one; give memd.socket a single ListenStream", n)
	}
	f := os.NewFile(firstActivatedFD, "activated socket")
	l, err := net.FileListener(f) // a duplicate: f's descriptor can go
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("the socket the service manager passed (fd %d): %w", firstActivatedFD, err)
	}
	if _, ok := l.(*net.UnixListener); !ok {
		l.Close()
		return nil, fmt.Errorf("the service manager passed a %s socket, not a unix one; ListenStream must name a path", l.Addr().Network())
	}
	return l, nil
}
