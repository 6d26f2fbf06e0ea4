package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/memd-dev/memd"
)

// Memory is what the server asks memd; *api.Client is one.
type Memory interface {
	Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error)
	Folders(ctx context.Context) ([]memd.FolderStatus, error)
	Note(ctx context.Context, path string) (memd.NoteDetail, error)
	Names(ctx context.Context, r memd.NamesRequest) (memd.NamesResult, error)
	Tags(ctx context.Context, r memd.TagsRequest) (memd.TagsResult, error)
	Resolve(ctx context.Context, r memd.ResolveRequest) (memd.ResolveResult, error)
	Backlinks(ctx context.Context, path, heading string) (memd.BacklinksResult, error)
}

// Options configure a Server. Connect is required.
type Options struct {
	// Connect returns a client of a running memd, starting one when none
	// answers (as memctl does). It runs in the background, never on the
	// editor's time.
	Connect func(ctx context.Context) (Memory, error)
	// Version is reported to the editor as the server's version.
	Version string
	// Log receives what the editor should not see in its message area;
	// nil discards it. `memctl lsp` logs to stderr, which editors keep in
	// their LSP log.
	Log *slog.Logger
	// Debounce is how long diagnostics wait after an edit before asking
	// memd about the buffer's links; zero means 300ms.
	Debounce time.Duration
}

// Answer budgets: what an editor waits on as the user types, and what it
// runs on request (a search, related notes).
const (
	interactiveTimeout = 2 * time.Second
	searchTimeout      = 20 * time.Second
)

// Commands the server executes (workspace/executeCommand).
const (
	// CommandRelated recalls the notes related to a paragraph or a
	// selection. Its argument is {"uri":…, "range":…}; it answers
	// Location[], the note itself left out.
	CommandRelated = "memd.related"
)

// Server is one editor's language server. Serve runs it on one
// connection; a Server is not reused.
type Server struct {
	opt  Options
	log  *slog.Logger
	docs documents
	link *link

	mu       sync.Mutex
	enc      encoding
	conn     *jsonrpc2.Conn
	state    serverState
	inflight map[jsonrpc2.ID]context.CancelFunc
	requests sync.WaitGroup
	diags    diagnoser
	folders  folderCache
}

type serverState int

const (
	waitingInit serverState = iota
	running
	shutDown
)

// NewServer returns a Server with opt.
func NewServer(opt Options) *Server {
	if opt.Debounce == 0 {
		opt.Debounce = 300 * time.Millisecond
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opt: opt, log: log, enc: utf16, inflight: map[jsonrpc2.ID]context.CancelFunc{}}
	s.link = newLink(opt.Connect, s.showMessage, log)
	s.diags = diagnoser{s: s, timers: map[string]*time.Timer{}}
	return s
}

// Serve answers the editor on rw (LSP's Content-Length framing) until the
// editor sends exit, closes the stream, or ctx ends. It returns once every
// request it started has answered.
func (s *Server) Serve(ctx context.Context, rw io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rw, jsonrpc2.VSCodeObjectCodec{}), s,
		jsonrpc2.SetLogger(discardLogger{}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel()
	s.diags.stop()
	s.requests.Wait()
	s.link.close()
	return nil
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}

// Handle takes each message in the order it arrived. Notifications, which
// change the buffers, run here, in that order; requests run beside it, so a
// slow answer holds up neither edits nor other requests.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.notification(ctx, conn, req)
		return
	}
	if req.Method == "initialize" || req.Method == "shutdown" {
		// The server's state changes here, before any later message is read.
		s.reply(ctx, conn, req)(s.request(ctx, s.currentState(), req))
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inflight[req.ID] = cancel
	state := s.state
	s.mu.Unlock()
	s.requests.Add(1)
	go func() {
		defer s.requests.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, req.ID)
			s.mu.Unlock()
			cancel()
		}()
		s.reply(ctx, conn, req)(s.request(rctx, state, req))
	}()
}

func (s *Server) currentState() serverState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// reply returns the function that answers req with a result or an error.
func (s *Server) reply(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) func(any, error) {
	return func(result any, err error) {
		if err == nil {
			_ = conn.Reply(ctx, req.ID, result)
			return
		}
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
		}
		_ = conn.ReplyWithError(ctx, req.ID, rpcErr)
	}
}

// codeServerNotInitialized and codeRequestCancelled are LSP's error codes.
const (
	codeServerNotInitialized = -32002
	codeRequestCancelled     = -32800
)

func (s *Server) request(ctx context.Context, state serverState, req *jsonrpc2.Request) (any, error) {
	switch {
	case req.Method == "initialize":
		return s.initialize(req)
	case state == waitingInit:
		return nil, &jsonrpc2.Error{Code: codeServerNotInitialized, Message: "send initialize first"}
	case req.Method == "shutdown":
		s.mu.Lock()
		s.state = shutDown
		s.mu.Unlock()
		return nil, nil
	case state == shutDown:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the server is shut down; send exit"}
	}
	h, ok := s.requestHandlers()[req.Method]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "memd's language server does not answer " + req.Method}
	}
	res, err := h(ctx, params{req.Params})
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil, &jsonrpc2.Error{Code: codeRequestCancelled, Message: "cancelled"}
	}
	return res, err
}

// params decodes a request's params.
type params struct{ raw *json.RawMessage }

func (p params) decode(v any) error {
	if p.raw == nil {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "params are missing"}
	}
	if err := json.Unmarshal(*p.raw, v); err != nil {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "params: " + err.Error()}
	}
	return nil
}

type handler func(ctx context.Context, p params) (any, error)

func (s *Server) requestHandlers() map[string]handler {
	return map[string]handler{
		"textDocument/completion":  s.completion,
		"textDocument/hover":       s.hover,
		"textDocument/definition":  s.definition,
		"textDocument/references":  s.references,
		"textDocument/codeAction":  s.codeAction,
		"workspace/symbol":         s.workspaceSymbol,
		"workspace/executeCommand": s.executeCommand,
	}
}

func (s *Server) initialize(req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := (params{req.Params}).decode(&p); err != nil {
		return nil, err
	}
	enc := utf16
	for _, e := range p.Capabilities.General.PositionEncodings {
		if e == string(utf8e) {
			enc = utf8e
		}
	}
	s.mu.Lock()
	s.enc, s.state = enc, running
	s.mu.Unlock()
	return initializeResult{
		ServerInfo: serverInfo{Name: "memd", Version: s.opt.Version},
		Capabilities: serverCapabilities{
			PositionEncoding:        string(enc),
			TextDocumentSync:        textDocumentSync{OpenClose: true, Change: syncFull, Save: saveOptions{IncludeText: false}},
			HoverProvider:           true,
			CompletionProvider:      completionOptions{TriggerCharacters: []string{"[", "#"}},
			DefinitionProvider:      true,
			ReferencesProvider:      true,
			WorkspaceSymbolProvider: true,
			CodeActionProvider:      true,
			ExecuteCommandProvider:  executeCommandOptions{Commands: []string{CommandRelated}},
		},
	}, nil
}

func (s *Server) encoding() encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// notification applies one notification. Unknown ones are dropped, as
// LSP asks.
func (s *Server) notification(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	p := params{req.Params}
	switch req.Method {
	case "initialized":
		s.link.start()
	case "exit":
		conn.Close()
	case "$/cancelRequest":
		var c cancelParams
		var id jsonrpc2.ID
		if p.decode(&c) == nil && json.Unmarshal(c.ID, &id) == nil {
			s.mu.Lock()
			if cancel := s.inflight[id]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
	case "textDocument/didOpen":
		var o didOpenParams
		if p.decode(&o) == nil {
			d := newDocument(o.TextDocument.URI, o.TextDocument.Version, o.TextDocument.Text)
			s.docs.put(d)
			s.diags.schedule(d.uri, 0)
		}
	case "textDocument/didChange":
		var c didChangeParams
		if p.decode(&c) == nil {
			s.change(c)
		}
	case "textDocument/didSave":
		var sv didSaveParams
		if p.decode(&sv) == nil {
			s.diags.schedule(sv.TextDocument.URI, 0)
		}
	case "textDocument/didClose":
		var c didCloseParams
		if p.decode(&c) == nil {
			s.docs.remove(c.TextDocument.URI)
			s.diags.clear(c.TextDocument.URI)
		}
	}
}

func (s *Server) change(c didChangeParams) {
	d := s.docs.get(c.TextDocument.URI)
	if d == nil {
		return
	}
	enc := s.encoding()
	for _, ch := range c.ContentChanges {
		text := ch.Text
		if ch.Range != nil {
			text = applyChange(d, *ch.Range, ch.Text, enc)
		}
		d = newDocument(d.uri, c.TextDocument.Version, text)
	}
	s.docs.put(d)
	s.diags.schedule(d.uri, s.opt.Debounce)
}

// showMessage puts a message in the editor's message area.
func (s *Server) showMessage(typ int, msg string) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Notify(context.Background(), "window/showMessage", showMessageParams{Type: typ, Message: msg})
	}
}

// notify sends a notification to the editor.
func (s *Server) notify(method string, v any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Notify(context.Background(), method, v)
	}
}
