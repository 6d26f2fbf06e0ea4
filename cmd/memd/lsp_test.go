package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/memd-dev/memd/lsp"
)

// editor is a test's side of `memctl lsp`: it speaks JSON-RPC to the
// memctl process over its stdin and stdout, as an editor does.
type editor struct {
	t    testing.TB
	conn *jsonrpc2.Conn
	cmd  *exec.Cmd

	mu       sync.Mutex
	messages []string
	diags    map[string][]lsp.Diagnostic
	notified chan struct{}
}

type pipes struct {
	*os.File // the server's stdout, read here
	w        *os.File
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	p.w.Close()
	return p.File.Close()
}

// startEditor runs `memctl lsp` on data and socket and initializes it.
func startEditor(t testing.TB, data, socket string) *editor {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "memctl"), "--data", data, "--socket", socket, "lsp")
	cmd.Env = append(os.Environ(), "MEMD_DATA=", "MEMD_SOCKET=")
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(syncBuffer)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdinR.Close()
	stdoutW.Close()
	e := &editor{t: t, cmd: cmd, diags: map[string][]lsp.Diagnostic{}, notified: make(chan struct{}, 64)}
	stream := jsonrpc2.NewBufferedStream(pipes{stdoutR, stdinW}, jsonrpc2.VSCodeObjectCodec{})
	e.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(e.handle))
	t.Cleanup(func() {
		e.conn.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("memctl lsp did not exit within 10s of its input closing\n%s", stderr)
		}
		if t.Failed() {
			t.Logf("memctl lsp stderr:\n%s", stderr)
		}
	})
	var init struct {
		Capabilities map[string]json.RawMessage
		ServerInfo   struct{ Name string }
	}
	e.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &init)
	if init.ServerInfo.Name != "memd" || init.Capabilities["completionProvider"] == nil {
		t.Fatalf("initialize: %+v", init)
	}
	if err := e.conn.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *editor) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch req.Method {
	case "window/showMessage":
		var m struct{ Message string }
		json.Unmarshal(*req.Params, &m)
		e.messages = append(e.messages, m.Message)
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string
			Diagnostics []lsp.Diagnostic
		}
		json.Unmarshal(*req.Params, &p)
		e.diags[p.URI] = p.Diagnostics
	}
	select {
	case e.notified <- struct{}{}:
	default:
	}
	return nil, nil
}

// call sends a request and decodes its result, failing the test on an
// error answer.
func (e *editor) call(method string, params, result any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.conn.Call(ctx, method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *editor) open(path string) string {
	e.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	uri := "file://" + path
	lang := "markdown"
	if strings.HasSuffix(path, ".org") {
		lang = "org"
	}
	err = e.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": 1, "text": string(b)}})
	if err != nil {
		e.t.Fatal(err)
	}
	return uri
}

func (e *editor) change(uri string, version int, text string) {
	e.t.Helper()
	err := e.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}}})
	if err != nil {
		e.t.Fatal(err)
	}
}

func at(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": line, "character": char}}
}

// TestLSP runs `memctl lsp` as an editor would, against a real daemon
// indexing a real vault, and asks it every question it answers.
func TestLSP(t *testing.T) {
	vault, _ := linkVault(t)
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	d := startDaemon(t, data, sock)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := d.client.AddFolder(ctx, vault); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, d.client, time.Minute)
	alpha, beta, gamma := filepath.Join(vault, "alpha.md"), filepath.Join(vault, "beta.md"), filepath.Join(vault, "sub", "gamma.md")

	e := startEditor(t, data, sock)
	alphaURI := e.open(alpha)
	gammaURI := e.open(gamma)

	t.Run("completion of a link", func(t *testing.T) {
		e.change(gammaURI, 2, "# Gamma\n\nwrite [[Al\n")
		var list lsp.CompletionList
		e.call("textDocument/completion", at(gammaURI, 2, 10), &list)
		if len(list.Items) == 0 || list.Items[0].Label != "Alpha Note" || list.Items[0].TextEdit.NewText != "alpha]]" {
			t.Fatalf("completion inside [[Al: %+v", list)
		}
		if r := list.Items[0].TextEdit.Range; r.Start.Character != 8 || r.End.Character != 10 {
			t.Errorf("the edit replaces %+v, want characters 8-10", r)
		}
		e.call("textDocument/completion", at(gammaURI, 2, 8), &list)
		if len(list.Items) < 2 || list.Items[0].Label != "Beta" {
			t.Fatalf("completion of an empty [[ puts the most linked note first: %+v", list)
		}
	})

	t.Run("completion of a tag", func(t *testing.T) {
		e.change(gammaURI, 3, "# Gamma\n\nwrite #o\n")
		var list lsp.CompletionList
		e.call("textDocument/completion", at(gammaURI, 2, 8), &list)
		if len(list.Items) != 1 || list.Items[0].Label != "other" || list.Items[0].Detail != "1 note" {
			t.Fatalf("completion after #o: %+v", list)
		}
		e.change(gammaURI, 4, "# Gamma\n\nwrite #\n")
		e.call("textDocument/completion", at(gammaURI, 2, 7), &list)
		if len(list.Items) != 2 || list.Items[0].Label != "proj" {
			t.Fatalf("completion after #, most used first: %+v", list)
		}
	})

	t.Run("hover", func(t *testing.T) {
		var h lsp.Hover
		e.call("textDocument/hover", at(alphaURI, 8, 10), &h) // on [[Beta#Some Details]]
		if !strings.Contains(h.Contents.Value, "more #proj #other") || !strings.Contains(h.Contents.Value, "beta.md") {
			t.Fatalf("hover on a heading link: %q", h.Contents.Value)
		}
		e.call("textDocument/hover", at(alphaURI, 7, 6), &h) // on [[beta]]
		if !strings.Contains(h.Contents.Value, "**Beta**") || !strings.Contains(h.Contents.Value, "Beta's opening words") {
			t.Fatalf("hover on a link: %q", h.Contents.Value)
		}
		betaURI := e.open(beta)
		e.call("textDocument/hover", at(betaURI, 6, 7), &h) // on #proj
		if !strings.Contains(h.Contents.Value, "3 notes carry it") {
			t.Fatalf("hover on a tag: %q", h.Contents.Value)
		}
		// A selection sent beside the position: the notes recall finds.
		phrase := at(gammaURI, 2, 2)
		phrase["range"] = map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": 13}}
		e.change(gammaURI, 5, "# Gamma\n\nopening words of the other note\n")
		e.call("textDocument/hover", phrase, &h)
		if !strings.Contains(h.Contents.Value, "beta.md:1") {
			t.Fatalf("hover on a selected phrase: %q", h.Contents.Value)
		}
	})

	t.Run("definition", func(t *testing.T) {
		var locs []lsp.Location
		e.call("textDocument/definition", at(alphaURI, 8, 12), &locs)
		if len(locs) != 1 || locs[0].URI != "file://"+beta || locs[0].Range.Start.Line != 4 {
			t.Fatalf("definition of [[Beta#Some Details]]: %+v", locs)
		}
	})

	t.Run("references", func(t *testing.T) {
		betaURI := e.open(beta)
		var locs []lsp.Location
		e.call("textDocument/references", at(betaURI, 0, 3), &locs) // the title
		if len(locs) != 4 {
			t.Fatalf("references of the note: %+v", locs)
		}
		e.call("textDocument/references", at(betaURI, 4, 5), &locs) // ## Some Details
		if len(locs) != 2 || locs[0].URI != "file://"+alpha || locs[0].Range.Start.Line != 8 || locs[0].Range.Start.Character != 9 {
			t.Fatalf("references of a heading: %+v", locs)
		}
	})

	t.Run("workspace symbol", func(t *testing.T) {
		var syms []lsp.SymbolInformation
		e.call("workspace/symbol", map[string]any{"query": "opening words"}, &syms)
		if len(syms) == 0 || syms[0].Location.URI != "file://"+beta || !strings.Contains(syms[0].Name, "Beta: ") {
			t.Fatalf("workspace symbol: %+v", syms)
		}
	})

	t.Run("related notes", func(t *testing.T) {
		var actions []lsp.CodeAction
		e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": gammaURI},
			"range":   map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": 0}},
			"context": map[string]any{"diagnostics": []any{}}}, &actions)
		if len(actions) != 1 || actions[0].Command.Command != lsp.CommandRelated {
			t.Fatalf("code actions: %+v", actions)
		}
		e.change(gammaURI, 5, "# Gamma\n\nthe opening words of beta\n")
		var locs []lsp.Location
		e.call("workspace/executeCommand", map[string]any{"command": lsp.CommandRelated, "arguments": actions[0].Command.Arguments}, &locs)
		if len(locs) == 0 || locs[0].URI != "file://"+beta {
			t.Fatalf("related notes: %+v", locs)
		}
		for _, l := range locs {
			if l.URI == gammaURI {
				t.Errorf("related notes hold the note itself: %+v", locs)
			}
		}
	})

	t.Run("diagnostics", func(t *testing.T) {
		e.change(gammaURI, 6, "# Gamma\n\n[[beta]] [[nowhere]] [[https://example.org][site]]\n```\n[[in code]]\n```\n")
		eventually(t, 10*time.Second, "a hint for the link that leads nowhere", func() (bool, string) {
			e.mu.Lock()
			defer e.mu.Unlock()
			ds := e.diags[gammaURI]
			ok := len(ds) == 1 && ds[0].Severity == 4 && ds[0].Range.Start.Line == 2 && ds[0].Range.Start.Character == 9 &&
				strings.Contains(ds[0].Message, "nowhere")
			b, _ := json.Marshal(ds)
			return ok, string(b)
		})
	})
}

// TestLSPWithoutDaemon: with no memd to start, the server still answers at
// once, and says once what is wrong.
func TestLSPWithoutDaemon(t *testing.T) {
	dir := tempDir(t)
	data := filepath.Join(dir, "data")
	// A data folder that is a file: memd cannot start on it.
	if err := os.WriteFile(data, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, data, filepath.Join(dir, "memd.sock"))
	uri := "file://" + filepath.Join(dir, "note.md")
	e.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": "[[x\n"}})
	for range 3 {
		var list lsp.CompletionList
		e.call("textDocument/completion", at(uri, 0, 3), &list)
		if len(list.Items) != 0 {
			t.Fatalf("completion without memd: %+v", list)
		}
	}
	eventually(t, 20*time.Second, "the editor is told memd cannot be reached", func() (bool, string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.messages) == 1 && strings.Contains(e.messages[0], "memd"), strings.Join(e.messages, " | ")
	})
	time.Sleep(500 * time.Millisecond)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.messages) != 1 {
		t.Fatalf("the editor was told %d times: %q", len(e.messages), e.messages)
	}
	t.Logf("the editor was told: %s", e.messages[0])
}
