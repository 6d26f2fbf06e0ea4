package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
)

// answerWith serves a unix socket whose every connection reads one request
// (with net/http's parser, which checks what the client wrote) and gets
// the raw bytes of answer back, then is closed. got receives each request.
func answerWith(t *testing.T, answer string) (sock string, got <-chan *http.Request) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "memd.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { l.Close() })
	reqs := make(chan *http.Request, 16)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					t.Errorf("the client wrote a request net/http cannot read: %v", err)
					return
				}
				body, _ := io.ReadAll(req.Body)
				req.Body = io.NopCloser(strings.NewReader(string(body)))
				reqs <- req
				_, _ = io.WriteString(conn, answer)
			}()
		}
	}()
	return sock, reqs
}

func TestRequestOnTheWire(t *testing.T) {
	sock, got := answerWith(t, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"hits\":[]}\n")
	c := NewClient(sock)
	if _, err := c.Recall(context.Background(), memd.RecallRequest{Query: "tomato"}); err != nil {
		t.Fatal(err)
	}
	r := <-got
	body, _ := io.ReadAll(r.Body)
	if r.Method != "POST" || r.RequestURI != memd.RouteRecall || r.Proto != "HTTP/1.1" || r.Host != "memd" ||
		!r.Close || r.Header.Get("Content-Type") != "application/json" || r.ContentLength != int64(len(body)) ||
		!strings.Contains(string(body), `"query":"tomato"`) {
		t.Errorf("request %s %s %s host %q close %v type %q length %d body %s",
			r.Method, r.RequestURI, r.Proto, r.Host, r.Close, r.Header.Get("Content-Type"), r.ContentLength, body)
	}

	if _, err := c.Note(context.Background(), "/notes/a b&c.md"); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.Method != "GET" || r.URL.Query().Get("path") != "/notes/a b&c.md" || r.ContentLength != 0 {
		t.Errorf("note request %s %s, length %d", r.Method, r.RequestURI, r.ContentLength)
	}
	if _, err := c.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.Method != "POST" || r.Header.Get("Content-Length") != "0" {
		t.Errorf("a POST without a body: %s, Content-Length %q", r.Method, r.Header.Get("Content-Length"))
	}
}

// What the client makes of answers from a daemon that is broken, or not
// memd, or says things memd's server does not but HTTP/1.1 allows.
func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		notes        int    // Status().Notes on success
		err          string // in the error, "" for success
		memdErr      *memd.Error
	}{
		{name: "content length", answer: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"notes\":3}\n", notes: 3},
		{name: "chunked with trailers", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"not\r\n7\r\nes\":4}\n\r\n0\r\nX-Sum: 9\r\n\r\n", notes: 4},
		{name: "until close", answer: "HTTP/1.1 200 OK\r\n\r\n{\"notes\":5}", notes: 5},
		{name: "HTTP/1.0", answer: "HTTP/1.0 200 OK\r\n\r\n{\"notes\":5}", notes: 5},
		{name: "interim answer first", answer: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"notes\":6}\n", notes: 6},
		{name: "repeated equal lengths", answer: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Length: 12\r\n\r\n{\"notes\":7}\n", notes: 7},
		{name: "bare LF", answer: "HTTP/1.1 200 OK\nContent-Length: 12\n\n{\"notes\":8}\n", notes: 8},

		{name: "no answer", answer: "", err: "closed the connection without answering"},
		{name: "not HTTP", answer: "SSH-2.0-OpenSSH_9.6\r\n\r\n", err: "malformed answer: status line"},
		{name: "status not a number", answer: "HTTP/1.1 2x0 OK\r\n\r\n", err: "malformed answer: status line"},
		{name: "status of four digits", answer: "HTTP/1.1 2000 OK\r\n\r\n", err: "malformed answer: status line"},
		{name: "HTTP/2 preface", answer: "HTTP/2 200\r\n\r\n", err: "malformed answer: status line"},
		{name: "ends in the headers", answer: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n", err: "read the answer's headers"},
		{name: "bad header line", answer: "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", err: "read the answer's headers"},
		{name: "lengths differ", answer: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n{\"notes\":7}\n", err: "malformed answer: Content-Length"},
		{name: "negative length", answer: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: "malformed answer: Content-Length"},
		{name: "length not a number", answer: "HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\n", err: "malformed answer: Content-Length"},
		{name: "gzip transfer coding", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", err: "malformed answer: Transfer-Encoding"},
		{name: "body shorter than its length", answer: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n{\"notes\":7", err: "read answer: unexpected EOF"},
		{name: "chunked body cut", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{\"notes\":7", err: "read answer: unexpected EOF"},
		{name: "endless headers", answer: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("x", 1000)+"\r\n", 1100) + "\r\n{}",
			err: "run past 1 MiB"},
		{name: "bad chunk size", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n{}\r\n0\r\n\r\n", err: "bad chunk size"},

		{name: "memd's error", answer: "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 57\r\n\r\n{\"error\":{\"code\":\"busy\",\"message\":\"memd is answering\"}}\n",
			memdErr: &memd.Error{Status: 429, Code: memd.CodeBusy, Message: "memd is answering", RetryAfter: 3 * time.Second}},
		{name: "an error in plain text", answer: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 14\r\n\r\nno generator\r\n",
			memdErr: &memd.Error{Status: 503, Code: memd.CodeUnavailable, Message: "no generator"}},
		{name: "an error without a body", answer: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
			memdErr: &memd.Error{Status: 404, Code: memd.CodeNotFound, Message: "Not Found"}},
		{name: "an error of no known kind", answer: "HTTP/1.1 418 I'm a teapot\r\nRetry-After: 9\r\n\r\n{\"error\":{}}",
			memdErr: &memd.Error{Status: 418, Code: memd.CodeInternal, Message: `{"error":{}}`}},
		{name: "a bad Retry-After", answer: "HTTP/1.1 429 Too Many Requests\r\nRetry-After: soon\r\n\r\n{\"error\":{\"code\":\"busy\",\"message\":\"wait\"}}",
			memdErr: &memd.Error{Status: 429, Code: memd.CodeBusy, Message: "wait"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock, _ := answerWith(t, tc.answer)
			st, err := NewClient(sock).Status(context.Background())
			switch {
			case tc.memdErr != nil:
				var e *memd.Error
				if !errors.As(err, &e) || *e != *tc.memdErr {
					t.Fatalf("error %#v, want %#v", err, tc.memdErr)
				}
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one that says %q", err, tc.err)
				}
			case err != nil || st.Notes != tc.notes:
				t.Fatalf("status %+v, %v; want %d notes", st, err, tc.notes)
			}
		})
	}
}

// Recall reads its answer whole before decoding it (by its length when the
// answer gives one): every framing reads the same, a short one fails.
func TestRecallAnswers(t *testing.T) {
	const body = `{"hits":[{"path":"/n/a.md","score":0.5}],"took_ms":1}`
	for _, tc := range []struct{ name, answer, err string }{
		{name: "content length", answer: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)},
		{name: "chunked", answer: fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)},
		{name: "until close", answer: "HTTP/1.1 200 OK\r\n\r\n" + body},
		{name: "body shorter than its length", answer: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body)+1, body),
			err: "read answer: unexpected EOF"},
		{name: "chunked body cut", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n80\r\n" + body, err: "read answer: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock, _ := answerWith(t, tc.answer)
			res, err := NewClient(sock).Recall(context.Background(), memd.RecallRequest{Query: "x"})
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one that says %q", err, tc.err)
				}
			case err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "/n/a.md" || res.TookMS != 1:
				t.Fatalf("recall %+v, %v", res, err)
			}
		})
	}
}

func TestRequestTargetChecked(t *testing.T) {
	for _, target := range []string{"/v1/notes?path=a b", "/v1/x\r\nHost: evil", "v1/status", "/v1/\x00"} {
		if _, err := appendRequest(nil, "GET", target, nil); err == nil {
			t.Errorf("target %q was written", target)
		}
	}
}
