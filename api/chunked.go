package api

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxChunkLine bounds a chunk's size line and each trailer line, so a
// broken answer cannot make the client buffer without end.
const maxChunkLine = 4096

var errChunkLineTooLong = errors.New("chunked body: a size or trailer line is longer than 4096 bytes")

// chunkedReader decodes a body sent with Transfer-Encoding: chunked (RFC
// 9112 §7.1): size lines in hexadecimal, each chunk's data and its CRLF,
// then a zero size and optional trailers, which it reads and drops.
//
// A Read that has data never waits for the next chunk's size line or the
// CRLF after the data unless they are already buffered: a stream (chat,
// events) is read as its chunks arrive.
type chunkedReader struct {
	r        *bufio.Reader
	left     int64 // bytes of the current chunk's data not yet read
	needCRLF bool  // the current chunk's data is read, its CRLF not yet
	err      error // sticky: io.EOF after the trailers
}

func newChunkedReader(r *bufio.Reader) *chunkedReader { return &chunkedReader{r: r} }

func (c *chunkedReader) Read(p []byte) (n int, err error) {
	if len(p) == 0 {
		return 0, c.err
	}
	for c.err == nil {
		switch {
		case c.needCRLF:
			if n > 0 && c.r.Buffered() < 2 {
				return n, nil
			}
			c.err = c.readCRLF()
			c.needCRLF = false
		case c.left == 0:
			if n > 0 && !c.lineBuffered() {
				return n, nil
			}
			c.err = c.readSize()
		case n == len(p):
			return n, nil
		default:
			m, err := c.r.Read(p[n:min(int64(len(p)), int64(n)+c.left)])
			n += m
			c.left -= int64(m)
			if c.left == 0 {
				c.needCRLF = true
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				c.err = err
			}
		}
	}
	return n, c.err
}

// lineBuffered says whether a whole line waits in the buffer.
func (c *chunkedReader) lineBuffered() bool {
	b, _ := c.r.Peek(c.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// readSize reads a chunk's size line; at the last chunk (size 0) it reads
// the trailers and ends the body with io.EOF.
func (c *chunkedReader) readSize() error {
	line, err := c.readLine()
	if err != nil {
		return err
	}
	size, err := parseChunkSize(line)
	if err != nil {
		return err
	}
	if size > 0 {
		c.left = size
		return nil
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return io.EOF
		}
	}
}

func (c *chunkedReader) readCRLF() error {
	line, err := c.readLine()
	if err != nil {
		return err
	}
	if len(line) != 0 {
		return fmt.Errorf("chunked body: %q after a chunk's data, want CRLF", line)
	}
	return nil
}

// readLine reads a line and returns it without its CRLF (or bare LF, which
// RFC 9112 lets a recipient accept).
func (c *chunkedReader) readLine() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull || (err == nil && len(line) > maxChunkLine):
		return nil, errChunkLineTooLong
	case err == io.EOF:
		return nil, io.ErrUnexpectedEOF
	case err != nil:
		return nil, err
	}
	line = line[:len(line)-1]
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// parseChunkSize reads the hexadecimal size that starts a chunk's size
// line; chunk extensions (after ';') are ignored.
func parseChunkSize(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 15 { // 15 hex digits stay below 1<<60
		return 0, fmt.Errorf("chunked body: bad chunk size %q", line)
	}
	var n int64
	for _, b := range line {
		var d byte
		switch {
		case '0' <= b && b <= '9':
			d = b - '0'
		case 'a' <= b && b <= 'f':
			d = b - 'a' + 10
		case 'A' <= b && b <= 'F':
			d = b - 'A' + 10
		default:
			return 0, fmt.Errorf("chunked body: bad chunk size %q", line)
		}
		n = n<<4 | int64(d)
	}
	return n, nil
}
