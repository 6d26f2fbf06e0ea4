package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/memd-dev/memd"
)

// GET /v1/ws speaks JSON-RPC 2.0 over a websocket, one request or
// notification per text message. Methods: recall, chat, status, subscribe,
// unsubscribe, cancel. Requests run concurrently; answers come in the
// order they finish, matched by id. A chat sends the notifications
// chat.sources and chat.delta (params carry the request's id) before its
// result; a subscription sends index.event until it is cancelled.
//
// A message that is not JSON-RPC gets an error answer and the connection
// lives on. A message over Options.MaxFrameBytes closes the connection
// (status 1009). A client that falls Options.WSQueue messages behind is
// dropped (status 1008 when the close frame still gets through), so it
// cannot hold memory or other clients up.

// JSON-RPC error codes: the spec's, then memd's in the server range.
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
	RPCServerError    = -32000 // a memd error; data.code says which
	RPCCancelled      = -32800 // the request was cancelled by the client
)

// WebSocket notification methods.
const (
	NotifyChatSources = "chat.sources"
	NotifyChatDelta   = "chat.delta"
	NotifyIndexEvent  = "index.event"
)

// wsWriteTimeout bounds one message write to a websocket client.
const wsWriteTimeout = 10 * time.Second

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// RPCError is a JSON-RPC error object. For memd's own errors Data holds
// {"code": …} with the same codes as the HTTP API.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

type rpcErrorData struct {
	Code         string `json:"code"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// rpcErrorOf turns a handler's error into the error object sent.
func rpcErrorOf(err error) *RPCError {
	var re *RPCError
	if errors.As(err, &re) {
		return re
	}
	e := asError(err)
	code := RPCServerError
	if e.Code == memd.CodeBadRequest {
		code = RPCInvalidParams
	}
	return &RPCError{Code: code, Message: e.Message, Data: rpcErrorData{Code: e.Code, RetryAfterMS: e.RetryAfter.Milliseconds()}}
}

func rpcErrorf(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// websocketRPC accepts the upgrade after checking the Origin.
func websocketRPC(s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.originAllowed(r.Header.Get("Origin")) {
			s.log.Warn("refused a websocket from a web page", "origin", r.Header.Get("Origin"))
			writeError(w, errorf(http.StatusForbidden, memd.CodeForbidden,
				"memd does not accept websockets from the page at %s; start memd with --ws-origin %s to allow it",
				r.Header.Get("Origin"), r.Header.Get("Origin")))
			return
		}
		if !s.enterWS() {
			writeError(w, errorf(http.StatusServiceUnavailable, memd.CodeUnavailable, "memd is shutting down"))
			return
		}
		defer s.wsConns.Done()
		// The Origin is checked above against memd's own list; the
		// library's same-host rule would let a DNS-rebound page in.
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return // Accept has answered
		}
		ws.SetReadLimit(s.opt.MaxFrameBytes)
		ctx, cancel := s.untilStop(context.Background())
		defer cancel()
		c := &rpcConn{s: s, ws: ws, out: make(chan []byte, s.opt.WSQueue), calls: map[string]context.CancelFunc{}}
		c.ctx, c.cancel = context.WithCancelCause(ctx)
		c.serve()
	})
}

// enterWS counts a websocket connection in, unless the server is
// shutting down: Shutdown waits for those counted.
func (s *Server) enterWS() bool {
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	select {
	case <-s.stopping:
		return false
	default:
	}
	s.wsConns.Add(1)
	return true
}

// originAllowed reports whether a websocket from origin may connect: no
// Origin (not a browser) or one on the allow-list.
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range s.opt.AllowedOrigins {
		if o == "*" || bytes.EqualFold([]byte(o), []byte(origin)) {
			return true
		}
	}
	return false
}

// rpcConn is one websocket client. The reader goroutine (serve) owns
// reading; one writer goroutine owns writing from the bounded queue out;
// each request runs in its own goroutine, tracked by wg.
type rpcConn struct {
	s      *Server
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelCauseFunc
	out    chan []byte
	wg     sync.WaitGroup

	mu       sync.Mutex
	calls    map[string]context.CancelFunc // requests and subscriptions in flight, by id
	inFlight int                           // requests running, notifications included
}

// errSlowReader ends a connection whose client does not read its answers.
var errSlowReader = errors.New("the client did not read its messages fast enough")

func (c *rpcConn) serve() {
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.write()
	}()
	readerDone := make(chan struct{})
	go func() {
		// The server stopping or a client too slow to read ends the
		// connection from this side, with a close frame that says why.
		select {
		case <-c.ctx.Done():
		case <-readerDone:
			return
		}
		switch cause := context.Cause(c.ctx); {
		case errors.Is(cause, errSlowReader):
			_ = c.ws.Close(websocket.StatusPolicyViolation, "memd: "+errSlowReader.Error())
		case isStopping(c.s):
			_ = c.ws.Close(websocket.StatusGoingAway, "memd is shutting down")
		}
	}()
	status, reason := c.read()
	close(readerDone)
	c.cancel(errors.New("connection closed"))
	c.wg.Wait()
	<-writerDone
	_ = c.ws.Close(status, reason)
}

func isStopping(s *Server) bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// read handles messages until the client goes, the connection is closed
// from this side, or a message is too large; it returns the close status
// to send.
func (c *rpcConn) read() (websocket.StatusCode, string) {
	for {
		// Not c.ctx: a cancelled read would cut the connection without a
		// close frame. The goroutine in serve closes it instead.
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				c.s.log.Warn("closed a websocket that sent an oversized message", "limit", c.s.opt.MaxFrameBytes)
				return websocket.StatusMessageTooBig, "message too big"
			}
			return websocket.StatusNormalClosure, ""
		}
		if typ != websocket.MessageText {
			c.reply(nil, nil, rpcErrorf(RPCInvalidRequest, "send JSON-RPC requests as text messages, not binary"))
			continue
		}
		c.handle(data)
	}
}

// write sends queued messages in order until the connection ends.
func (c *rpcConn) write() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case msg := <-c.out:
			ctx, cancel := context.WithTimeout(c.ctx, wsWriteTimeout)
			err := c.ws.Write(ctx, websocket.MessageText, msg)
			cancel()
			if err != nil {
				c.cancel(fmt.Errorf("write: %w", err))
				return
			}
		}
	}
}

// send queues one message; a full queue drops the connection.
func (c *rpcConn) send(v any) bool {
	msg, err := json.Marshal(v)
	if err != nil {
		c.s.log.Warn("encode websocket message", "err", err)
		return false
	}
	if c.ctx.Err() != nil {
		return false
	}
	select {
	case c.out <- msg:
		return true
	default:
		c.s.log.Warn("dropped a websocket client that stopped reading", "queued", cap(c.out))
		c.cancel(errSlowReader)
		return false
	}
}

func (c *rpcConn) reply(id json.RawMessage, result any, rerr *RPCError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = rpcErrorf(RPCInternalError, "encode result: %v", err)
		} else {
			resp.Result = b
		}
	}
	c.send(resp)
}

func (c *rpcConn) notify(method string, params any) bool {
	return c.send(rpcNotification{JSONRPC: "2.0", Method: method, Params: params})
}

// handle parses one message and starts its request.
func (c *rpcConn) handle(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		c.reply(nil, nil, rpcErrorf(RPCInvalidRequest, "batches are not supported; send one request per message"))
		return
	}
	var req rpcRequest
	if err := json.Unmarshal(data, &req); err != nil {
		c.reply(nil, nil, rpcErrorf(RPCParseError, "the message is not a JSON-RPC object: %v", err))
		return
	}
	id, notification, ok := requestID(req.ID)
	switch {
	case !ok:
		c.reply(nil, nil, rpcErrorf(RPCInvalidRequest, `"id" must be a string or a number`))
		return
	case req.JSONRPC != "2.0" || req.Method == "":
		c.reply(req.ID, nil, rpcErrorf(RPCInvalidRequest, `a request needs "jsonrpc":"2.0" and a "method"`))
		return
	}
	if req.Method == "cancel" || req.Method == "unsubscribe" {
		res, err := c.cancelCall(req)
		if !notification {
			c.reply(req.ID, res, err)
		}
		return
	}
	run, ok := c.method(req.Method)
	if !ok {
		if !notification {
			c.reply(req.ID, nil, rpcErrorf(RPCMethodNotFound,
				"no method %q; memd answers recall, chat, status, subscribe, unsubscribe and cancel", req.Method))
		}
		return
	}
	ctx, release, rerr := c.track(id, notification)
	if rerr != nil {
		c.reply(req.ID, nil, rerr)
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer release()
		res, err := run(ctx, req)
		if notification || errors.Is(err, errAnswered) {
			return
		}
		if err != nil {
			if ctx.Err() != nil && c.ctx.Err() == nil && context.Cause(ctx) == errCancelled {
				err = rpcErrorf(RPCCancelled, "the request was cancelled")
			}
			c.reply(req.ID, nil, rpcErrorOf(err))
			return
		}
		c.reply(req.ID, res, nil)
	}()
}

// requestID returns the id as a map key; absent or null is a notification.
func requestID(raw json.RawMessage) (key string, notification, ok bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", true, true
	}
	var v any
	if json.Unmarshal(t, &v) != nil {
		return "", false, false
	}
	switch v.(type) {
	case string, float64:
		return string(t), false, true
	}
	return "", false, false
}

var errCancelled = errors.New("cancelled by the client")

// track registers a request for cancel and counts it against the
// connection's limit; release undoes both.
func (c *rpcConn) track(id string, notification bool) (ctx context.Context, release func(), rerr *RPCError) {
	ctx, cancel := context.WithCancelCause(c.ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight >= c.s.opt.WSRequests {
		cancel(nil)
		return nil, nil, &RPCError{Code: RPCServerError, Message: fmt.Sprintf("this connection has %d requests in flight, its limit; wait for one to finish", c.inFlight),
			Data: rpcErrorData{Code: memd.CodeBusy}}
	}
	if !notification {
		if _, dup := c.calls[id]; dup {
			cancel(nil)
			return nil, nil, rpcErrorf(RPCInvalidRequest, "id %s is already in flight on this connection; use a new id", id)
		}
		c.calls[id] = func() { cancel(errCancelled) }
	}
	c.inFlight++
	return ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.inFlight--
		if !notification {
			delete(c.calls, id)
		}
		cancel(nil)
	}, nil
}

// cancelParams are the params of cancel and unsubscribe.
type cancelParams struct {
	ID           json.RawMessage `json:"id"`
	Subscription json.RawMessage `json:"subscription"`
}

// cancelCall stops the request or subscription named by params.id (or
// params.subscription).
func (c *rpcConn) cancelCall(req rpcRequest) (any, *RPCError) {
	var p cancelParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, rpcErrorf(RPCInvalidParams, `%s takes {"id": <the request's id>}`, req.Method)
	}
	target := p.ID
	if target == nil {
		target = p.Subscription
	}
	id, none, ok := requestID(target)
	if !ok || none {
		return nil, rpcErrorf(RPCInvalidParams, `%s takes {"id": <the request's id>}`, req.Method)
	}
	c.mu.Lock()
	cancel, found := c.calls[id]
	c.mu.Unlock()
	if found {
		cancel()
	}
	return map[string]bool{"cancelled": found}, nil
}

type rpcMethod func(ctx context.Context, req rpcRequest) (any, error)

func (c *rpcConn) method(name string) (rpcMethod, bool) {
	switch name {
	case "recall":
		return c.recall, true
	case "chat":
		return c.chat, true
	case "status":
		return c.status, true
	case "subscribe":
		return c.subscribe, true
	}
	return nil, false
}

// params decodes a request's params strictly, as the HTTP routes do.
func params(req rpcRequest, v any) error {
	if len(req.Params) == 0 || string(req.Params) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &RPCError{Code: RPCInvalidParams, Message: "params: " + jsonError(err).Message}
	}
	return nil
}

func (c *rpcConn) recall(ctx context.Context, req rpcRequest) (any, error) {
	var r memd.RecallRequest
	if err := params(req, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.s.opt.RequestTimeout)
	defer cancel()
	leave, err := c.s.recalls.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	res, err := c.s.svc.Recall(ctx, r)
	if res.Hits == nil {
		res.Hits = []memd.Hit{}
	}
	return res, err
}

func (c *rpcConn) status(ctx context.Context, _ rpcRequest) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.s.opt.RequestTimeout)
	defer cancel()
	return c.s.svc.Status(ctx)
}

// The params of the chat notifications.
type (
	wsSources struct {
		ID      json.RawMessage `json:"id"`
		Sources []memd.Source   `json:"sources"`
	}
	wsDelta struct {
		ID   json.RawMessage `json:"id"`
		Text string          `json:"text"`
	}
)

var errConnGone = errors.New("the websocket connection is gone")

func (c *rpcConn) chat(ctx context.Context, req rpcRequest) (any, error) {
	var r memd.ChatRequest
	if err := params(req, &r); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.s.opt.ChatTimeout)
	defer cancel()
	id := req.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	res, err := c.s.svc.Chat(ctx, r, func(ev memd.ChatEvent) error {
		ok := true
		if ev.Type == memd.ChatSources {
			ok = c.notify(NotifyChatSources, wsSources{ID: id, Sources: ev.Sources})
		} else {
			ok = c.notify(NotifyChatDelta, wsDelta{ID: id, Text: ev.Delta})
		}
		if !ok {
			return errConnGone
		}
		return nil
	})
	if err != nil {
		return nil, c.s.chatError(ctx, err)
	}
	return res, nil
}

// subscribe answers at once with the subscription's id (the request's),
// then sends index events as notifications until cancel or unsubscribe
// names that id, or the connection ends.
func (c *rpcConn) subscribe(ctx context.Context, req rpcRequest) (any, error) {
	if len(req.ID) == 0 {
		return nil, rpcErrorf(RPCInvalidRequest, "subscribe needs an id: it names the subscription")
	}
	events := c.s.svc.Subscribe(ctx)
	c.reply(req.ID, map[string]json.RawMessage{"subscription": req.ID}, nil)
	for {
		select {
		case <-ctx.Done():
			for range events { // Subscribe closes it once ctx has ended
			}
			return nil, errAnswered
		case ev, ok := <-events:
			if !ok {
				return nil, errAnswered
			}
			if !c.notify(NotifyIndexEvent, map[string]any{"subscription": req.ID, "event": ev}) {
				return nil, errAnswered
			}
		}
	}
}

// errAnswered ends a request that has sent its answer already.
var errAnswered = errors.New("answered")
