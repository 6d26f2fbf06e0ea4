package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"time"

	"github.com/memd-dev/memd"
)

// Chat asks the daemon to answer the conversation in r. With onEvent nil it
// waits for the whole answer. Otherwise the answer streams: onEvent gets
// the sources first, then the text in pieces, and an error from onEvent
// stops the chat (the daemon stops generating when the connection closes).
// Refusals come back as *Error: 503 with no generator, 429 (RetryAfter
// set) when the daemon is busy.
func (c *Client) Chat(ctx context.Context, r memd.ChatRequest, onEvent func(memd.ChatEvent) error) (memd.ChatResult, error) {
	var res memd.ChatResult
	if onEvent == nil {
		err := c.do(ctx, "POST", memd.RouteChat, r, &res)
		return res, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.send(ctx, "POST", memd.RouteChat, memd.ChatBody{ChatRequest: r, Stream: true})
	if err != nil {
		return res, err
	}
	defer resp.body.Close()
	sr := NewSSEReader(resp.body)
	for {
		name, data, err := sr.Next()
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
		case memd.ChatSources:
			var ev memd.SourcesEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return res, fmt.Errorf("chat: bad sources event: %w", err)
			}
			err = onEvent(memd.ChatEvent{Type: memd.ChatSources, Sources: ev.Sources})
		case memd.ChatDelta:
			var ev memd.DeltaEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return res, fmt.Errorf("chat: bad delta event: %w", err)
			}
			err = onEvent(memd.ChatEvent{Type: memd.ChatDelta, Delta: ev.Text})
		case memd.ChatDone:
			if err := json.Unmarshal(data, &res); err != nil {
				return res, fmt.Errorf("chat: bad done event: %w", err)
			}
			return res, nil
		case memd.ChatError:
			var b memd.ErrorBody
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

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(h textproto.MIMEHeader) time.Duration {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
