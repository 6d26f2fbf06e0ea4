package hub

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSilentServerTimesOut: a server that accepts connections and never
// answers ends a pull with an error that says so, instead of holding it
// for as long as it likes.
func TestSilentServerTimesOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	c := &Client{Endpoint: "http://" + l.Addr().String(), answerWait: 300 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.Pull(ctx, "someone/model", "model.gguf", t.TempDir(), "", nil)
	if err == nil || !strings.Contains(err.Error(), "sent no answer") || ctx.Err() != nil {
		t.Fatalf("pull from a silent server: %v after %v", err, time.Since(start))
	}
	t.Logf("%v after %v", err, time.Since(start))
}
