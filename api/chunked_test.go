package api

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net/http/httputil"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestChunkedReader(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		err            string // "" for a clean end
	}{
		{name: "one chunk", in: "5\r\nhello\r\n0\r\n\r\n", want: "hello"},
		{name: "chunks", in: "3\r\nabc\r\n1\r\nd\r\nA\r\n0123456789\r\n0\r\n\r\n", want: "abcd0123456789"},
		{name: "empty body", in: "0\r\n\r\n", want: ""},
		{name: "upper and lower hex", in: "a\r\n0123456789\r\nB\r\n0123456789a\r\n0\r\n\r\n", want: "01234567890123456789a"},
		{name: "leading zeros", in: "0005\r\nhello\r\n000\r\n\r\n", want: "hello"},
		{name: "extensions", in: "5;name=value\r\nhello\r\n0;last\r\n\r\n", want: "hello"},
		{name: "space before an extension", in: "5 ;x\r\nhello\r\n0\r\n\r\n", want: "hello"},
		{name: "trailers", in: "5\r\nhello\r\n0\r\nX-Sum: 1\r\nX-Other: two\r\n\r\n", want: "hello"},
		{name: "bare LF", in: "5\nhello\n0\n\n", want: "hello"},
		{name: "data with CRLF inside", in: "4\r\n\r\n\r\n\r\n0\r\n\r\n", want: "\r\n\r\n"},
		{name: "bytes after the end are left", in: "1\r\nx\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n", want: "x"},

		{name: "not hex", in: "zz\r\nhello\r\n0\r\n\r\n", err: "bad chunk size"},
		{name: "empty size", in: "\r\nhello\r\n", err: "bad chunk size"},
		{name: "negative size", in: "-5\r\nhello\r\n0\r\n\r\n", err: "bad chunk size"},
		{name: "0x prefix", in: "0x5\r\nhello\r\n0\r\n\r\n", err: "bad chunk size"},
		{name: "size over 60 bits", in: "1000000000000000\r\nhello\r\n", err: "bad chunk size"},
		{name: "size wraps int64", in: "ffffffffffffffffff\r\n", err: "bad chunk size"},
		{name: "size line too long", in: "5;" + strings.Repeat("x", 5000) + "\r\nhello\r\n0\r\n\r\n", err: "longer than 4096"},
		{name: "trailer line too long", in: "0\r\nX: " + strings.Repeat("x", 5000) + "\r\n\r\n", err: "longer than 4096"},
		{name: "data longer than its size", in: "3\r\nhello\r\n0\r\n\r\n", want: "hel", err: "want CRLF"},
		{name: "ends in a chunk's data", in: "5\r\nhel", want: "hel", err: io.ErrUnexpectedEOF.Error()},
		{name: "ends before the CRLF", in: "5\r\nhello", want: "hello", err: io.ErrUnexpectedEOF.Error()},
		{name: "ends before the last chunk", in: "5\r\nhello\r\n", want: "hello", err: io.ErrUnexpectedEOF.Error()},
		{name: "ends in the trailers", in: "5\r\nhello\r\n0\r\nX-Sum: 1\r\n", want: "hello", err: io.ErrUnexpectedEOF.Error()},
		{name: "ends in a size line", in: "5", err: io.ErrUnexpectedEOF.Error()},
		{name: "nothing", in: "", err: io.ErrUnexpectedEOF.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bufSize := range []int{1, 3, 4096} {
				got, err := readAllBy(newChunkedReader(bufio.NewReader(strings.NewReader(tc.in))), bufSize)
				if string(got) != tc.want {
					t.Errorf("read %d bytes at a time: %q, want %q", bufSize, got, tc.want)
				}
				switch {
				case tc.err == "" && err != nil:
					t.Errorf("read %d bytes at a time: %v, want a clean end", bufSize, err)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Errorf("read %d bytes at a time: error %v, want one that says %q", bufSize, err, tc.err)
				}
			}
		})
	}
}

// readAllBy reads r to its end n bytes at a time; the error is nil at io.EOF.
func readAllBy(r io.Reader, n int) ([]byte, error) {
	var out []byte
	p := make([]byte, n)
	for {
		m, err := r.Read(p)
		out = append(out, p[:m]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// The reader decodes what net/http's chunked writer writes, for bodies of
// every size up to several buffers and chunks of random sizes.
func TestChunkedReaderReadsNetHTTP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 100, 4095, 4096, 4097, 70_000, 1 << 20} {
		body := make([]byte, size)
		for i := range body {
			body[i] = byte(rng.IntN(256))
		}
		var wire bytes.Buffer
		cw := httputil.NewChunkedWriter(&wire)
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(9000))
			_, _ = cw.Write(rest[:n])
			rest = rest[n:]
		}
		cw.Close()
		wire.WriteString("\r\n") // the end of the (empty) trailers, which net/http writes apart
		got, err := io.ReadAll(newChunkedReader(bufio.NewReader(&wire)))
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%d bytes: read %d bytes back, equal %v, %v", size, len(got), bytes.Equal(got, body), err)
		}
	}
}

// A stream's chunk is handed over as soon as it arrives: the read does not
// wait for the next chunk's size line.
func TestChunkedReaderStreams(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	cr := newChunkedReader(bufio.NewReader(pr))
	got := make(chan string)
	go func() {
		p := make([]byte, 64)
		for {
			n, err := cr.Read(p)
			if err != nil {
				close(got)
				return
			}
			got <- string(p[:n])
		}
	}()
	for _, event := range []string{"event: delta\n\n", "data: more\n\n"} {
		_, _ = io.WriteString(pw, strconv.FormatInt(int64(len(event)), 16)+"\r\n"+event+"\r\n")
		select {
		case s := <-got:
			if s != event {
				t.Fatalf("read %q, want %q", s, event)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the chunk %q was not handed over before the next one came", event)
		}
	}
	_, _ = io.WriteString(pw, "0\r\n\r\n")
	if _, ok := <-got; ok {
		t.Fatal("read more after the last chunk")
	}
}

func TestChunkedReaderStickyError(t *testing.T) {
	cr := newChunkedReader(bufio.NewReader(strings.NewReader("zz\r\n")))
	p := make([]byte, 8)
	_, err1 := cr.Read(p)
	_, err2 := cr.Read(p)
	if err1 == nil || !errors.Is(err2, err1) {
		t.Fatalf("errors %v then %v, want the same error twice", err1, err2)
	}
	if n, err := cr.Read(nil); n != 0 || err != err1 {
		t.Fatalf("an empty read after the error: %d, %v", n, err)
	}
}
