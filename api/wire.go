package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
)

// response is the daemon's answer to one request: the status line, the
// headers and a body that reads off the connection the request went on.
type response struct {
	status int
	reason string // the status line's reason phrase, "Not Found"
	header textproto.MIMEHeader
	length int64         // the body's Content-Length, -1 when it has none
	body   io.ReadCloser // closing it closes the connection
}

// exchange sends one request on conn and reads the answer's status line
// and headers; the body is left on conn for the caller, who must close it.
// The request says Connection: close, so conn serves it alone. ctx's end
// closes conn, which ends the request wherever it is (sending, waiting,
// or reading the body) and tells the daemon the client left; the error
// is then ctx's. On any error conn is closed.
func exchange(ctx context.Context, conn net.Conn, method, target string, payload []byte) (*response, error) {
	req, err := appendRequest(nil, method, target, payload)
	if err != nil {
		conn.Close()
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	fail := func(err error) (*response, error) {
		stop()
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	_, werr := conn.Write(req)
	// A daemon may answer and hang up before reading all of a large request
	// (413): its answer then says more than the write's broken pipe.
	head := &headLimit{r: conn, left: maxHeadBytes}
	resp, body, err := readResponse(bufio.NewReader(head), method)
	head.left = -1 // the body is as long as it says
	if err != nil {
		if werr != nil {
			err = fmt.Errorf("send the request: %w", werr)
		}
		return fail(err)
	}
	resp.body = &connBody{r: body, ctx: ctx, conn: conn, stop: stop}
	return resp, nil
}

// maxHeadBytes bounds an answer's status line and headers (with what the
// buffer reads of the body along with them), as net/http's client bounds
// them, so a broken answer cannot grow the client without end.
const maxHeadBytes = 1 << 20

var errHeadTooLong = errors.New("malformed answer: the status line and headers run past 1 MiB")

// headLimit reads from r, failing past left bytes until left is -1.
type headLimit struct {
	r    io.Reader
	left int64
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		return 0, errHeadTooLong
	}
	n, err := h.r.Read(p[:min(int64(len(p)), h.left)])
	h.left -= int64(n)
	return n, err
}

// appendRequest appends an HTTP/1.1 request to b: the request line, Host
// (HTTP/1.1 requires one; memd's unix socket ignores it), the JSON body's
// type and length, and Connection: close.
func appendRequest(b []byte, method, target string, payload []byte) ([]byte, error) {
	if !validTarget(target) {
		return nil, fmt.Errorf("request target %q: want a path and query without spaces or control characters", target)
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: memd\r\n"...)
	if payload != nil {
		b = append(b, "Content-Type: application/json\r\n"...)
	}
	if payload != nil || (method != "GET" && method != "HEAD") {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(payload)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Connection: close\r\n\r\n"...)
	return append(b, payload...), nil
}

func validTarget(t string) bool {
	if !strings.HasPrefix(t, "/") {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] == 0x7f {
			return false
		}
	}
	return true
}

// readResponse reads a response's status line and headers from br, skips
// interim (1xx) answers, and frames the body (RFC 9112 §6.3), which it
// returns apart for the caller to wrap.
func readResponse(br *bufio.Reader, method string) (*response, io.Reader, error) {
	tp := textproto.NewReader(br)
	for {
		line, err := tp.ReadLine()
		if err != nil {
			if err == io.EOF {
				return nil, nil, errors.New("the daemon closed the connection without answering; see memd's log")
			}
			return nil, nil, fmt.Errorf("read the answer: %w", err)
		}
		status, reason, err := parseStatusLine(line)
		if err != nil {
			return nil, nil, err
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return nil, nil, fmt.Errorf("read the answer's headers: %w", err)
		}
		if status/100 == 1 && status != 101 {
			continue
		}
		body, length, err := bodyReader(br, method, status, h)
		if err != nil {
			return nil, nil, err
		}
		return &response{status: status, reason: reason, header: h, length: length}, body, nil
	}
}

// parseStatusLine reads "HTTP/1.1 404 Not Found".
func parseStatusLine(line string) (status int, reason string, err error) {
	proto, rest, _ := strings.Cut(line, " ")
	code, reason, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 {
		return 0, "", fmt.Errorf("malformed answer: status line %q", line)
	}
	status, err = strconv.Atoi(code)
	if err != nil || status < 100 {
		return 0, "", fmt.Errorf("malformed answer: status line %q", line)
	}
	return status, reason, nil
}

// bodyReader frames the body that follows the headers h: none, chunked,
// Content-Length bytes, or everything until the daemon closes. length is
// the body's length when it is known, -1 otherwise.
func bodyReader(br *bufio.Reader, method string, status int, h textproto.MIMEHeader) (body io.Reader, length int64, err error) {
	if method == "HEAD" || status/100 == 1 || status == 204 || status == 304 {
		return strings.NewReader(""), 0, nil
	}
	if te := h.Values("Transfer-Encoding"); len(te) > 0 {
		if len(te) != 1 || !strings.EqualFold(strings.TrimSpace(te[0]), "chunked") {
			return nil, 0, fmt.Errorf("malformed answer: Transfer-Encoding %q; memd sends only chunked", te)
		}
		return newChunkedReader(br), -1, nil
	}
	if cl := h.Values("Content-Length"); len(cl) > 0 {
		n, err := contentLength(cl)
		if err != nil {
			return nil, 0, err
		}
		return &fixedReader{r: br, left: n}, n, nil
	}
	return br, -1, nil
}

// contentLength reads Content-Length, which may repeat but not differ.
func contentLength(values []string) (int64, error) {
	var n int64 = -1
	for _, v := range values {
		m, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || m < 0 || (n >= 0 && m != n) {
			return 0, fmt.Errorf("malformed answer: Content-Length %q", values)
		}
		n = m
	}
	return n, nil
}

// fixedReader reads a body of a known length, and fails when the
// connection ends before it does.
type fixedReader struct {
	r    io.Reader
	left int64
}

func (f *fixedReader) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n, err := f.r.Read(p[:min(int64(len(p)), f.left)])
	f.left -= int64(n)
	if err == io.EOF && f.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == nil && f.left == 0 {
		err = io.EOF
	}
	return n, err
}

// connBody is an answer's body: closing it closes the connection, and a
// read that ctx's end interrupted says so.
type connBody struct {
	r    io.Reader
	ctx  context.Context
	conn net.Conn
	stop func() bool
}

func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		return n, b.ctx.Err()
	}
	return n, err
}

// readBody reads resp's body whole: into one buffer of its length when the
// answer says it (up to maxSizedBody), not one grown as it arrives.
func readBody(resp *response) ([]byte, error) {
	if n := resp.length; n >= 0 && n <= maxSizedBody {
		b := make([]byte, n)
		_, err := io.ReadFull(resp.body, b)
		return b, err
	}
	return io.ReadAll(resp.body)
}

// maxSizedBody bounds what readBody allocates on a Content-Length's word.
const maxSizedBody = 16 << 20

func (b *connBody) Close() error {
	b.stop()
	return b.conn.Close()
}
