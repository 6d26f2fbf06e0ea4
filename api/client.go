package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"

	"github.com/memd-dev/memd"
)

// ErrNotRunning means no daemon answers on the client's socket: the socket
// file is missing, or nobody listens on it.
var ErrNotRunning = errors.New("memd is not running")

// Client calls a memd daemon over its unix socket. It is safe for
// concurrent use. Answers other than 2xx come back as *Error.
type Client struct {
	socket string
	dial   func(context.Context) (net.Conn, error)
	// unused holds Dial's connection until a request takes it.
	unused chan net.Conn
}

// NewClient returns a client of the daemon listening at socketPath.
func NewClient(socketPath string) *Client {
	return &Client{socket: socketPath, dial: unixDialer(socketPath), unused: make(chan net.Conn, 1)}
}

// Dial connects to the daemon at socketPath now, so the caller learns at
// once whether one answers (ErrNotRunning when none does). The connection
// it opened serves the client's first request: a command line tool that
// asks one thing opens one connection, not a probe and then another.
func Dial(ctx context.Context, socketPath string) (*Client, error) {
	c := NewClient(socketPath)
	conn, err := c.dial(ctx)
	if err != nil {
		if notRunning(err) {
			return nil, fmt.Errorf("%w: nothing answers on %s", ErrNotRunning, socketPath)
		}
		return nil, fmt.Errorf("connect to memd on %s: %w", socketPath, err)
	}
	c.unused <- conn
	return c, nil
}

// unixDialer connects to the socket at path. No timeout: connecting to a
// unix socket never waits (a daemon whose backlog is full refuses at
// once, EAGAIN), and a timeout's timer cost each memctl start 35-45 µs
// (BENCHMARKS.md).
func unixDialer(path string) func(context.Context) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "unix", path) }
}

// Socket is the path the client dials.
func (c *Client) Socket() string { return c.socket }

// Close closes Dial's connection if no request took it. Requests under way
// are not interrupted: their contexts end them.
func (c *Client) Close() {
	select {
	case conn := <-c.unused:
		conn.Close()
	default:
	}
}

// Recall asks for the chunks that best answer r.Query.
func (c *Client) Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
	const method, path = "POST", memd.RouteRecall
	var res memd.RecallResult
	payload, err := appendRecallRequest(nil, r)
	if err != nil {
		return res, fmt.Errorf("%s %s: encode request: %w", method, path, err)
	}
	resp, err := c.sendPayload(ctx, method, path, payload)
	if err != nil {
		return res, err
	}
	defer resp.body.Close()
	raw, err := readBody(resp)
	if err == nil && !decodeRecallResult(raw, &res) {
		err = json.NewDecoder(bytes.NewReader(raw)).Decode(&res)
	}
	if err != nil {
		return res, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return res, nil
}

// Status reports what the daemon holds and is doing.
func (c *Client) Status(ctx context.Context) (memd.Status, error) {
	var st memd.Status
	err := c.do(ctx, "GET", memd.RouteStatus, nil, &st)
	return st, err
}

// AddFolder registers the folder at the absolute path and starts indexing it.
func (c *Client) AddFolder(ctx context.Context, path string) (memd.FolderStatus, error) {
	var f memd.FolderStatus
	err := c.do(ctx, "POST", memd.RouteFolders, memd.PathBody{Path: path}, &f)
	return f, err
}

// RemoveFolder stops watching a folder and drops its notes from the index.
func (c *Client) RemoveFolder(ctx context.Context, path string) error {
	return c.do(ctx, "DELETE", memd.RouteFolders, memd.PathBody{Path: path}, nil)
}

// Folders lists the registered folders.
func (c *Client) Folders(ctx context.Context) ([]memd.FolderStatus, error) {
	var l memd.FolderList
	err := c.do(ctx, "GET", memd.RouteFolders, nil, &l)
	return l.Folders, err
}

// Note returns the indexed note at the absolute path, with its chunks.
func (c *Client) Note(ctx context.Context, path string) (memd.NoteDetail, error) {
	var d memd.NoteDetail
	err := c.do(ctx, "GET", memd.RouteNotes+"?"+url.Values{"path": {path}}.Encode(), nil, &d)
	return d, err
}

// Forget drops the note at the absolute path from the index until it changes.
func (c *Client) Forget(ctx context.Context, path string) error {
	return c.do(ctx, "DELETE", memd.RouteNotes, memd.PathBody{Path: path}, nil)
}

// Reindex queues a note or folder ("" for every folder) to be indexed again
// and returns how many jobs were queued.
func (c *Client) Reindex(ctx context.Context, path string) (memd.ReindexResult, error) {
	var res memd.ReindexResult
	var body any
	if path != "" {
		body = memd.PathBody{Path: path}
	}
	err := c.do(ctx, "POST", memd.RouteReindex, body, &res)
	return res, err
}

// Compact has memd copy its store's live data into a new file, giving the
// free space back to the disk.
func (c *Client) Compact(ctx context.Context) (memd.CompactResult, error) {
	var res memd.CompactResult
	err := c.do(ctx, "POST", memd.RouteCompact, nil, &res)
	return res, err
}

// Skips lists the files that were not indexed, and why.
func (c *Client) Skips(ctx context.Context) ([]memd.Skip, error) {
	var l memd.SkipList
	err := c.do(ctx, "GET", memd.RouteSkips, nil, &l)
	return l.Skips, err
}

// WaitIdle returns when the daemon has no indexing work pending, or with
// ctx's error when ctx ends first.
func (c *Client) WaitIdle(ctx context.Context) error {
	for {
		var res memd.IdleResult
		if err := c.do(ctx, "GET", memd.RouteIdle+"?timeout=30s", nil, &res); err != nil {
			return err
		}
		if res.Idle {
			return nil
		}
	}
}

// do sends one request with body (nil for none) as JSON and decodes a 2xx
// answer into out (nil to drop it).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.body)
		return nil
	}
	if err := json.NewDecoder(resp.body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return nil
}

// send makes the request and returns a 2xx answer for the caller to read
// and close; any other answer is turned into an *Error.
func (c *Client) send(ctx context.Context, method, path string, body any) (*response, error) {
	var payload []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		payload = b
	}
	return c.sendPayload(ctx, method, path, payload)
}

// sendPayload is send with the body already encoded (nil for none).
func (c *Client) sendPayload(ctx context.Context, method, path string, payload []byte) (*response, error) {
	resp, err := c.roundTrip(ctx, method, path, payload)
	if err != nil {
		if notRunning(err) {
			return nil, fmt.Errorf("%w: nothing answers on %s", ErrNotRunning, c.socket)
		}
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.status/100 != 2 {
		defer resp.body.Close()
		return nil, readError(resp)
	}
	return resp, nil
}

// roundTrip sends the request on Dial's connection when no request has
// taken it yet, and on a new connection otherwise.
func (c *Client) roundTrip(ctx context.Context, method, path string, payload []byte) (*response, error) {
	var conn net.Conn
	select {
	case conn = <-c.unused:
	default:
		var err error
		if conn, err = c.dial(ctx); err != nil {
			return nil, err
		}
	}
	return exchange(ctx, conn, method, path, payload)
}

// notRunning tells a daemon that is not there from other failures.
func notRunning(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// readError decodes an error answer, keeping what it can of one that is not
// memd's JSON (a proxy, or a daemon of another version).
func readError(resp *response) *memd.Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.body, 64<<10))
	var b memd.ErrorBody
	if json.Unmarshal(raw, &b) == nil && b.Error != nil && b.Error.Code != "" {
		b.Error.Status = resp.status
		b.Error.RetryAfter = retryAfter(resp.header)
		return b.Error
	}
	msg := string(bytes.TrimSpace(raw))
	if msg == "" {
		msg = resp.reason
	}
	return &memd.Error{Status: resp.status, Code: codeOf(resp.status), Message: msg}
}

func codeOf(status int) string {
	switch status {
	case 400:
		return memd.CodeBadRequest
	case 401:
		return memd.CodeUnauthorized
	case 403:
		return memd.CodeForbidden
	case 404:
		return memd.CodeNotFound
	case 405:
		return memd.CodeMethodNotAllowed
	case 413:
		return memd.CodeTooLarge
	case 503:
		return memd.CodeUnavailable
	case 504:
		return memd.CodeTimeout
	case 429:
		return memd.CodeBusy
	}
	return memd.CodeInternal
}
