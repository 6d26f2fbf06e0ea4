package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/memd-dev/memd"
)

// ErrNotRunning means no daemon answers on the client's socket: the socket
// file is missing, or nobody listens on it.
var ErrNotRunning = errors.New("memd is not running")

// Client calls a memd daemon over its unix socket. It is safe for
// concurrent use. Answers other than 2xx come back as *Error.
type Client struct {
	socket string
	http   *http.Client
	// unused holds Dial's connection until a request takes it (sendOn).
	unused chan net.Conn
}

// NewClient returns a client of the daemon listening at socketPath.
func NewClient(socketPath string) *Client {
	var d net.Dialer // no timeout, as in Dial
	return newClient(socketPath, func(ctx context.Context) (net.Conn, error) {
		return d.DialContext(ctx, "unix", socketPath)
	})
}

// Dial connects to the daemon at socketPath now, so the caller learns at
// once whether one answers (ErrNotRunning when none does). The connection
// it opened serves the client's first request alone (sendOn): a command
// line tool that asks one thing opens one connection, not a probe and then
// another.
func Dial(ctx context.Context, socketPath string) (*Client, error) {
	// No timeout: connecting to a unix socket never waits (a daemon whose
	// backlog is full refuses at once, EAGAIN), and a timeout's timer cost
	// each memctl start 35-45 µs (BENCHMARKS.md).
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socketPath)
	if err != nil {
		if notRunning(err) {
			return nil, fmt.Errorf("%w: nothing answers on %s", ErrNotRunning, socketPath)
		}
		return nil, fmt.Errorf("connect to memd on %s: %w", socketPath, err)
	}
	c := newClient(socketPath, func(ctx context.Context) (net.Conn, error) {
		return d.DialContext(ctx, "unix", socketPath)
	})
	c.unused = make(chan net.Conn, 1)
	c.unused <- conn
	return c, nil
}

func newClient(socketPath string, dial func(context.Context) (net.Conn, error)) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dial(ctx)
		},
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 0, // long polls and streams wait on purpose; callers bound them with ctx
	}
	return &Client{socket: socketPath, http: &http.Client{Transport: tr}}
}

// Socket is the path the client dials.
func (c *Client) Socket() string { return c.socket }

// Close drops idle connections, and Dial's connection if no request took it.
func (c *Client) Close() {
	c.http.CloseIdleConnections()
	select {
	case conn := <-c.unused:
		conn.Close()
	default:
	}
}

// Recall asks for the chunks that best answer r.Query.
func (c *Client) Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
	var res memd.RecallResult
	err := c.do(ctx, "POST", memd.RouteRecall, r, &res)
	return res, err
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
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return nil
}

// send makes the request and returns a 2xx response for the caller to read
// and close; any other answer is turned into an *Error.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://memd"+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.roundTrip(ctx, req)
	if err != nil {
		if notRunning(err) {
			return nil, fmt.Errorf("%w: nothing answers on %s", ErrNotRunning, c.socket)
		}
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, readError(resp)
	}
	return resp, nil
}

// roundTrip sends req on Dial's connection when no request has taken it
// yet, and through the Transport otherwise.
func (c *Client) roundTrip(ctx context.Context, req *http.Request) (*http.Response, error) {
	select {
	case conn := <-c.unused:
		return sendOn(ctx, conn, req)
	default:
		return c.http.Do(req)
	}
}

// sendOn sends req on conn and reads the answer on this goroutine, with
// net/http's own request writer and response reader. Through the
// Transport, a connection gets a reading and a writing goroutine, whose
// wake-ups start threads of their own: in a command line tool that asks
// one thing and exits, that was 0.4-0.55 ms of memctl recall's time and
// CPU (BENCHMARKS.md). The request says Connection: close, so conn serves
// it alone; closing the answer's body closes conn. ctx's end interrupts
// the request, and then reading the body, as it would the Transport's.
func sendOn(ctx context.Context, conn net.Conn, req *http.Request) (*http.Response, error) {
	req.Close = true
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	err := req.Write(conn)
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(bufio.NewReader(conn), req)
	}
	if err != nil {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	resp.Body = &connBody{ReadCloser: resp.Body, ctx: ctx, conn: conn, stop: stop}
	return resp, nil
}

// connBody is the body of sendOn's answer: closing it closes the
// connection, and a read that ctx's end interrupted says so.
type connBody struct {
	io.ReadCloser
	ctx  context.Context
	conn net.Conn
	stop func() bool
}

func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		return n, b.ctx.Err()
	}
	return n, err
}

func (b *connBody) Close() error {
	b.stop()
	_ = b.ReadCloser.Close()
	return b.conn.Close()
}

// notRunning tells a daemon that is not there from other failures.
func notRunning(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// readError decodes an error answer, keeping what it can of one that is not
// memd's JSON (a proxy, or a daemon of another version).
func readError(resp *http.Response) *memd.Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var b memd.ErrorBody
	if json.Unmarshal(raw, &b) == nil && b.Error != nil && b.Error.Code != "" {
		b.Error.Status = resp.StatusCode
		b.Error.RetryAfter = retryAfter(resp.Header)
		return b.Error
	}
	msg := string(bytes.TrimSpace(raw))
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &memd.Error{Status: resp.StatusCode, Code: codeOf(resp.StatusCode), Message: msg}
}

func codeOf(status int) string {
	switch status {
	case http.StatusBadRequest:
		return memd.CodeBadRequest
	case http.StatusUnauthorized:
		return memd.CodeUnauthorized
	case http.StatusForbidden:
		return memd.CodeForbidden
	case http.StatusNotFound:
		return memd.CodeNotFound
	case http.StatusMethodNotAllowed:
		return memd.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return memd.CodeTooLarge
	case http.StatusServiceUnavailable:
		return memd.CodeUnavailable
	case http.StatusGatewayTimeout:
		return memd.CodeTimeout
	case http.StatusTooManyRequests:
		return memd.CodeBusy
	}
	return memd.CodeInternal
}
