package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// EventType says what an Event reports. The values match memory's event
// types, so the service passes them through unchanged.
type EventType string

// Event types.
const (
	EventIndexed  EventType = "note.indexed" // a note was written (new, changed or renamed)
	EventRemoved  EventType = "note.removed" // a note left the index (file gone, ignored, forgotten)
	EventSkipped  EventType = "note.skipped" // a file was not indexed; Reason says why
	EventProgress EventType = "progress"     // a batch committed; Pending and Notes are current
	EventError    EventType = "error"        // something failed that the indexer will retry or report
)

// Event is a change in the index. Pending and Notes are the store's counts
// after the transaction the event reports.
type Event struct {
	Type    EventType `json:"type"`
	Path    string    `json:"path,omitempty"`
	Folder  string    `json:"folder,omitempty"`
	Chunks  int       `json:"chunks,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Pending int       `json:"pending"`
	Notes   int       `json:"notes"`
	At      time.Time `json:"at"`
}

// subscriberBuffer is how many events a subscriber may fall behind before
// events to it are dropped.
const subscriberBuffer = 256

// broadcaster fans events out to subscribers without ever blocking the
// sender: a full subscriber loses the event and the drop is counted.
type broadcaster struct {
	mu      sync.Mutex
	subs    map[chan Event]struct{}
	closed  bool
	dropped atomic.Int64
}

func (b *broadcaster) subscribe(ctx context.Context) <-chan Event {
	ch := make(chan Event, subscriberBuffer)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch
	}
	if b.subs == nil {
		b.subs = map[chan Event]struct{}{}
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

func (b *broadcaster) send(evs ...Event) {
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
