package pipeline

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/memd-dev/memd"
)

// subscriberBuffer is how many events a subscriber may fall behind before
// events to it are dropped.
const subscriberBuffer = 256

// broadcaster fans events out to subscribers without ever blocking the
// sender: a full subscriber loses the event and the drop is counted.
type broadcaster struct {
	mu      sync.Mutex
	subs    map[chan memd.Event]struct{}
	closed  bool
	dropped atomic.Int64
}

func (b *broadcaster) subscribe(ctx context.Context) <-chan memd.Event {
	ch := make(chan memd.Event, subscriberBuffer)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch
	}
	if b.subs == nil {
		b.subs = map[chan memd.Event]struct{}{}
	}
	b.subs[ch] = struct{}{}
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	})
	return ch
}

func (b *broadcaster) send(evs ...memd.Event) {
	if len(evs) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		for _, ev := range evs {
			select {
			case ch <- ev:
			default:
				b.dropped.Add(1)
			}
		}
	}
}

// close ends every subscription; later subscriptions get a closed channel.
func (b *broadcaster) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		close(ch)
	}
	b.subs = nil
	b.closed = true
}
