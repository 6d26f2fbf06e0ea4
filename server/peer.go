package server

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/memd-dev/memd"
)

// peer is who is on the other end of a connection, as the kernel says.
type peer struct {
	uid int
	err error
}

type peerKey struct{}

// withPeer records the connecting process's uid in the connection's context.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	p := peer{uid: -1}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		p.err = errors.New("not a unix socket connection")
	} else {
		p.uid, p.err = peerUID(uc)
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// checkPeer answers 403 to every process not of the server's user.
func (s *Server) checkPeer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := r.Context().Value(peerKey{}).(peer)
		switch {
		case !ok || p.err != nil:
			s.log.Warn("refused a connection whose user is unknown", "err", p.err)
			writeError(w, errorf(http.StatusForbidden, memd.CodeForbidden,
				"memd could not tell which user is connecting, so it refuses; connect over memd's unix socket"))
		case p.uid != s.uid:
			s.log.Warn("refused a connection from another user", "uid", p.uid)
			writeError(w, errorf(http.StatusForbidden, memd.CodeForbidden,
				"memd answers only the user who started it; run memctl as that user, or start your own memd"))
		default:
			h.ServeHTTP(w, r)
		}
	})
}
