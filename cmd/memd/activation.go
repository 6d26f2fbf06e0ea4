package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"

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
