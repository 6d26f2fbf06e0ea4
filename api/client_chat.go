package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/memd-dev/memd/memory"
)

// Chat asks the daemon to answer the conversation in r. With onEvent nil it
// waits for the whole answer. Otherwise the answer streams: onEvent gets
// the sources first, then the text in pieces, and an error from onEvent
// stops the chat (the daemon stops generating when the connection closes).
// Refusals come back as *Error: 503 with no generator, 429 (RetryAfter
// set) when the daemon is busy.
func (c *Client) Chat(ctx context.Context, r memory.ChatRequest, onEvent func(memory.ChatEvent) error) (memory.ChatResult, error) {
	var res memory.ChatResult
	if onEvent == nil {
		err := c.do(ctx, "POST", "/v1/chat", r, &res)
		return res, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.send(ctx, "POST", "/v1/chat", chatBody{ChatRequest: r, Stream: true})
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	sr := newSSEReader(resp.Body)
	for {
		name, data, err := sr.next()
		if err == io.EOF {
			return res, fmt.Errorf("chat: the stream ended before the answer was done; see memd's log")
		}
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, fmt.Errorf("chat: %w", err)
		}
		switch name {
		case EventSources:
			var ev sourcesEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return res, fmt.Errorf("chat: bad sources event: %w", err)
			}
			err = onEvent(memory.ChatEvent{Type: memory.ChatSources, Sources: ev.Sources})
		case EventDelta:
			var ev deltaEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return res, fmt.Errorf("chat: bad delta event: %w", err)
			}
			err = onEvent(memory.ChatEvent{Type: memory.ChatDelta, Delta: ev.Text})
		case EventDone:
			if err := json.Unmarshal(data, &res); err != nil {
				return res, fmt.Errorf("chat: bad done event: %w", err)
			}
			return res, nil
		case EventError:
			var b errorBody
			if err := json.Unmarshal(data, &b); err != nil || b.Error == nil {
				return res, fmt.Errorf("chat: the daemon failed and its error could not be read: %s", data)
			}
			return res, b.Error
		}
		if err != nil {
			return res, err
		}
	}
}

// sseReader reads the events of a server-sent event stream.
type sseReader struct{ sc *bufio.Scanner }

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &sseReader{sc: sc}
}

// next returns the next event's name ("message" when it has none) and
// data; io.EOF at the end of the stream. Comment lines are skipped.
func (s *sseReader) next() (string, []byte, error) {
	name := ""
	var data []byte
	for s.sc.Scan() {
		line := s.sc.Bytes()
		switch {
		case len(line) == 0:
			if data == nil && name == "" {
				continue
			}
			if name == "" {
				name = "message"
			}
			return name, data, nil
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	if err := s.sc.Err(); err != nil {
		return "", nil, err
	}
	return "", nil, io.EOF
}

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
