package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends if that comes first.
func For(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
