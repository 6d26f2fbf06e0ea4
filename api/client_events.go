package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/memd-dev/memd/memory"
)

// EventStream reads the daemon's index events. It is not safe for
// concurrent use; Close it when done.
type EventStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

// Events subscribes to index events. The stream is open when Events
// returns: events from then on are delivered. It ends when ctx ends, the
// stream is closed, or the daemon stops.
func (c *Client) Events(ctx context.Context) (*EventStream, error) {
	resp, err := c.send(ctx, "GET", "/v1/events", nil)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	s := &EventStream{resp: resp, sc: sc}
	// The daemon opens with a comment line; reading it means the
	// subscription is in place before the caller acts.
	if !sc.Scan() {
		resp.Body.Close()
		return nil, fmt.Errorf("event stream: closed before it started: %v", sc.Err())
	}
	return s, nil
}

// Next blocks for the next event. It returns io.EOF when the stream has
// ended, and ctx's error when the context given to Events ended.
func (s *EventStream) Next() (memory.Event, error) {
	var data []byte
	for s.sc.Scan() {
		line := s.sc.Bytes()
		switch {
		case len(line) == 0:
			if data == nil {
				continue
			}
			var ev memory.Event
			if err := json.Unmarshal(data, &ev); err != nil {
				return memory.Event{}, fmt.Errorf("event stream: bad event %q: %w", data, err)
			}
			return ev, nil
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	if ctxErr := s.resp.Request.Context().Err(); ctxErr != nil {
		return memory.Event{}, ctxErr
	}
	if err := s.sc.Err(); err != nil {
		return memory.Event{}, fmt.Errorf("event stream: %w", err)
	}
	return memory.Event{}, io.EOF
}

// Close ends the stream.
func (s *EventStream) Close() error { return s.resp.Body.Close() }
