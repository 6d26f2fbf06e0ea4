package api

import (
	"bufio"
	"bytes"
	"io"
)

// SSEReader reads the events of a server-sent event stream: memd's chat
// and index event streams, and the OpenAI-compatible streams.
type SSEReader struct{ sc *bufio.Scanner }

// NewSSEReader reads the stream r.
func NewSSEReader(r io.Reader) *SSEReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &SSEReader{sc: sc}
}

// Next returns the next event's name ("message" when it has none) and
// data; io.EOF at the end of the stream. Comment lines are skipped.
func (s *SSEReader) Next() (string, []byte, error) {
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
