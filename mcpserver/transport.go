package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpMethods are the requests memctl mcp answers: those of the
// capabilities it declares (tools, resources) and the protocol's own.
var mcpMethods = map[string]bool{
	"initialize": true, "ping": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
}

// agentTransport is the SDK's stdio transport with two repairs: a line of
// input that is not JSON is answered with a parse error and skipped (the
// SDK's reader ends the session on one), and a request for a method memd
// does not serve is answered -32601, as JSON-RPC asks (the SDK answers
// code 0, and answers some methods of capabilities it never declared).
type agentTransport struct {
	in  *agentInput
	out *lockedWriter
	log *slog.Logger
}

func newAgentTransport(in io.Reader, out io.Writer, log *slog.Logger) *agentTransport {
	w := &lockedWriter{w: out}
	return &agentTransport{in: &agentInput{src: readCloser(in), lines: bufio.NewReader(in), out: w, log: log}, out: w, log: log}
}

func (t *agentTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := (&mcp.IOTransport{Reader: t.in, Writer: nopWriteCloser{t.out}}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &agentConn{Connection: conn}, nil
}

// agentConn answers requests for methods memd does not serve itself.
type agentConn struct{ mcp.Connection }

func (c *agentConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() || mcpMethods[req.Method] {
			return msg, err
		}
		refusal := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("memd does not serve %q; it serves tools and resources", req.Method)}}
		if err := c.Connection.Write(ctx, refusal); err != nil {
			return nil, err
		}
	}
}

// agentInput is stdin passed on one JSON line at a time. It notes when the
// agent closed it, and answers a line that is not JSON with a parse error
// instead of passing it on.
type agentInput struct {
	src     io.ReadCloser
	lines   *bufio.Reader
	out     *lockedWriter
	log     *slog.Logger
	pending []byte
	closed  atomic.Bool
	onEOF   func() // called when the agent closes stdin
}

func (r *agentInput) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, err := r.lines.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if json.Valid(trimmed) {
				r.pending = line
			} else {
				r.refuse(trimmed)
			}
		}
		if err != nil {
			if len(r.pending) > 0 {
				break
			}
			if errors.Is(err, io.EOF) && !r.closed.Swap(true) && r.onEOF != nil {
				r.onEOF()
			}
			return 0, err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *agentInput) Close() error { return r.src.Close() }

// refuse answers a line that is not JSON, as JSON-RPC asks: a parse error
// with a null id.
func (r *agentInput) refuse(line []byte) {
	r.log.Warn("skipped a line of input that is not JSON", "line", string(line[:min(len(line), 80)]))
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": jsonrpc.CodeParseError, "message": "the line is not JSON; send one JSON-RPC message per line"}})
	_, _ = r.out.Write(append(msg, '\n'))
}

// lockedWriter serializes writes to stdout: the SDK's answers and the
// parse errors memctl writes itself, each one whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// readCloser lets the session close stdin when it ends, as the SDK's own
// stdio transport does, where the reader can be closed.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// nopWriteCloser keeps the session from closing stdout, which the process
// owns.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
