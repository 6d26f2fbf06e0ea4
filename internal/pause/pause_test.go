package pause

import (
	"context"
	"testing"
	"time"
)

func TestForWaits(t *testing.T) {
	start := time.Now()
	For(context.Background(), 20*time.Millisecond)
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("For returned after %v, before its 20ms", waited)
	}
}

// A context that ends wakes For at once: a backoff never holds shutdown.
func TestForEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		For(ctx, time.Hour)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("For(ctx, 1h) still waiting a minute after ctx ended")
	}
}
