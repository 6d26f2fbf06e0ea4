package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/memd-dev/memd"
)

// EventStream reads the daemon's index events. It is not safe for
// concurrent use; Close it when done.
type EventStream struct {
	ctx  context.Context // Events's
	body io.Closer
	sr   *SSEReader
}

// Events subscribes to index events. The stream is open when Events
// returns: events from then on are delivered. It ends when ctx ends, the
// stream is closed, or the daemon stops.
func (c *Client) Events(ctx context.Context) (*EventStream, error) {
	resp, err := c.send(ctx, "GET", memd.RouteEvents, nil)
	if err != nil {
		return nil, err
	}
	s := &EventStream{ctx: ctx, body: resp.body, sr: NewSSEReader(resp.body)}
	// The daemon opens with a comment line; reading it means the
	// subscription is in place before the caller acts.
	if !s.sr.sc.Scan() {
		resp.body.Close()
		return nil, fmt.Errorf("event stream: closed before it started: %v", s.sr.sc.Err())
	}
	return s, nil
}

// Next blocks for the next event. It returns io.EOF when the stream has
// ended, and ctx's error when the context given to Events ended.
func (s *EventStream) Next() (memd.Event, error) {
	for {
		_, data, err := s.sr.Next()
		if ctxErr := s.ctx.Err(); err != nil && ctxErr != nil {
			return memd.Event{}, ctxErr
		}
		if err == io.EOF {
			return memd.Event{}, io.EOF
		}
		if err != nil {
			return memd.Event{}, fmt.Errorf("event stream: %w", err)
		}
		if data == nil {
			continue
		}
		var ev memd.Event
		if err := json.Unmarshal(data, &ev); err != nil {
			return memd.Event{}, fmt.Errorf("event stream: bad event %q: %w", data, err)
		}
		return ev, nil
	}
}

// Close ends the stream.
func (s *EventStream) Close() error { return s.body.Close() }
