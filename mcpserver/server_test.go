package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/internal/syncbuf"
	"github.com/memd-dev/memd/server/servertest"
)

// mcpAgent is an agent's end of memctl mcp, run over two pipes as an agent
// runs it over stdin and stdout.
type mcpAgent struct {
	*mcp.ClientSession
	stdin  io.Closer       // the command's stdin, written by the agent
	done   chan error      // the command's error, once it returns
	stderr *syncbuf.Buffer // what the command logged
	stdout *syncbuf.Buffer // what the command wrote on stdout
}

// startMCP runs memctl mcp against svc served by a real server.Server, and
// connects an MCP client to it. The command must return nil once its stdin
// closes, which cleanup checks.
func startMCP(t *testing.T, svc *apitest.Service) *mcpAgent {
	t.Helper()
	sock := servertest.Socket(t, svc)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ag := &mcpAgent{stdin: inW, done: make(chan error, 1), stderr: &syncbuf.Buffer{}, stdout: &syncbuf.Buffer{}}
	go func() {
		err := Serve(context.Background(), inR, io.MultiWriter(ag.stdout, outW), testOptions(sock, ag.stderr))
		outW.Close()
		ag.done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ag.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		if err := ag.wait(); err != nil {
			t.Errorf("memctl mcp: %v", err)
		}
	})
	return ag
}

// wait returns the command's error once it has returned.
func (ag *mcpAgent) wait() error {
	select {
	case err := <-ag.done:
		ag.done <- err // for cleanup, which waits too
		return err
	case <-time.After(5 * time.Second):
		return io.ErrNoProgress
	}
}

// call calls a tool, failing the test on a protocol error.
func (ag *mcpAgent) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := ag.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// text is the result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes the result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

func TestMCPListsTools(t *testing.T) {
	ag := startMCP(t, apitest.New())
	if got := ag.InitializeResult().ServerInfo.Name; got != "memd" {
		t.Errorf("server name %q", got)
	}
	res, err := ag.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		if tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s has no description or annotations", tool.Name)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range tools {
			if !yield(n) {
				return
			}
		}
	})
	if want := []string{"add_folder", "chat", "forget", "read_note", "recall", "status"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	schema, _ := json.Marshal(tools["recall"].InputSchema)
	for _, want := range []string{`"required":["query"]`, `"path_prefix"`, `"tags"`, `"maximum":1000`, `"minimum":1`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("recall's input schema lacks %s: %s", want, schema)
		}
	}
	if caps := ag.InitializeResult().Capabilities; caps.Tools == nil || caps.Resources == nil || caps.Prompts != nil || caps.Logging != nil {
		t.Errorf("declared capabilities %+v: want tools and resources, what memd serves", caps)
	}
	if !tools["recall"].Annotations.ReadOnlyHint || tools["forget"].Annotations.ReadOnlyHint {
		t.Error("recall should be read-only and forget not")
	}
	if d := tools["forget"].Annotations.DestructiveHint; d == nil || !*d {
		t.Error("forget is not marked destructive")
	}
}

func TestMCPRecall(t *testing.T) {
	svc := recallFake()
	svc.FolderList["/n"] = memd.FolderStatus{Path: "/n", Notes: 1, Watching: true}
	ag := startMCP(t, svc)
	res := ag.call(t, "recall", map[string]any{"query": "tomatoes", "k": 3, "folder": "/n", "path_prefix": "/n/", "tags": []string{"garden"}})
	var got memd.RecallResult
	structured(t, res, &got)
	want := memd.Hit{Folder: "/n", Path: "/n/garden.md", StartLine: 3, EndLine: 9, Heading: []string{"Garden", "Tomatoes"},
		Text: "## Tomatoes\n\nWater tomatoes deeply twice a week.\n", Summary: "watering", Score: 1.25}
	if len(got.Hits) != 1 || !hitsEqual(got.Hits[0], want) {
		t.Fatalf("hits %+v, want %+v", got.Hits, want)
	}
	wantText := "/n/garden.md:3-9  Garden > Tomatoes  (score 1.250)\n    ## Tomatoes\n    \n    Water tomatoes deeply twice a week.\n"
	if text(res) != wantText {
		t.Errorf("text\n%q\nwant\n%q", text(res), wantText)
	}
	svc.Mu.Lock()
	r := svc.LastRecall
	svc.Mu.Unlock()
	if r.K != 3 || r.Filters.Folder != "/n" || r.Filters.PathPrefix != "/n/" || !slices.Equal(r.Filters.Tags, []string{"garden"}) {
		t.Errorf("request %+v", r)
	}

	res = ag.call(t, "recall", map[string]any{"query": "cucumbers"})
	structured(t, res, &got)
	if len(got.Hits) != 0 || !strings.Contains(text(res), `nothing in the notes matches "cucumbers"`) {
		t.Errorf("no hits: %+v, %q", got.Hits, text(res))
	}
}

func hitsEqual(a, b memd.Hit) bool {
	return a.Folder == b.Folder && a.Path == b.Path && a.StartLine == b.StartLine && a.EndLine == b.EndLine &&
		slices.Equal(a.Heading, b.Heading) && a.Text == b.Text && a.Summary == b.Summary && a.Score == b.Score
}

func TestMCPChat(t *testing.T) {
	svc := chatFake()
	ag := startMCP(t, svc)
	res := ag.call(t, "chat", map[string]any{"question": "tomatoes", "k": 3})
	var got chatAnswer
	structured(t, res, &got)
	if got.Answer != "Water them deeply [1]." || len(got.Citations) != 1 ||
		got.Citations[0].Path != "/n/garden.md" || got.Citations[0].StartLine != 3 {
		t.Fatalf("answer %+v", got)
	}
	wantText := "Water them deeply [1].\n\nsources:\n/n/garden.md:3: [1] Garden > Tomatoes\n"
	if text(res) != wantText {
		t.Errorf("text\n%q\nwant\n%q", text(res), wantText)
	}
	svc.Mu.Lock()
	r := svc.LastChat
	svc.Mu.Unlock()
	if r.K != 3 || len(r.Messages) != 1 || r.Messages[0].Content != "tomatoes" || !r.UsesMemory() {
		t.Errorf("request %+v", r)
	}
}

func TestMCPStatus(t *testing.T) {
	svc := recallFake()
	svc.FolderList["/n"] = memd.FolderStatus{Path: "/n", Notes: 1, Watching: true}
	svc.Pending = 2
	ag := startMCP(t, svc)
	res := ag.call(t, "status", nil)
	var got mcpStatus
	structured(t, res, &got)
	want := mcpStatus{Notes: 1, Chunks: 1, Pending: 2, Folders: []memd.FolderStatus{{Path: "/n", Notes: 1, Watching: true}}}
	if got.Notes != want.Notes || got.Chunks != want.Chunks || got.Pending != want.Pending || !slices.Equal(got.Folders, want.Folders) {
		t.Fatalf("status %+v, want %+v", got, want)
	}
	if !strings.Contains(text(res), "1 notes, 1 chunks, 2 pending") {
		t.Errorf("text %q", text(res))
	}
}

func TestMCPAddFolderForget(t *testing.T) {
	svc := recallFake()
	ag := startMCP(t, svc)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var f memd.FolderStatus
	structured(t, ag.call(t, "add_folder", map[string]any{"path": dir}), &f)
	if f.Path != dir || !f.Watching {
		t.Errorf("folder %+v", f)
	}
	// Added again, it is said to be registered already, with the
	// daemon's counts of it.
	res := ag.call(t, "add_folder", map[string]any{"path": dir})
	if want := dir + " was already registered: 0 notes indexed, watched for changes"; text(res) != want {
		t.Errorf("add_folder again: %q, want %q", text(res), want)
	}
	var rm memd.Removed
	structured(t, ag.call(t, "forget", map[string]any{"path": "/n/garden.md"}), &rm)
	svc.Mu.Lock()
	_, registered := svc.FolderList[dir]
	_, kept := svc.Notes["/n/garden.md"]
	svc.Mu.Unlock()
	if !registered || kept || !rm.Removed {
		t.Errorf("registered %v, note kept %v, removed %+v", registered, kept, rm)
	}
}

// TestMCPToolErrors checks that bad arguments, refusals of the daemon and
// a missing generator all come back as tool errors the agent's model can
// read, with the daemon's own message.
func TestMCPToolErrors(t *testing.T) {
	ag := startMCP(t, recallFake()) // no ChatAnswer: the daemon has no generator
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{}, `missing properties: ["query"]`},
		{"recall", map[string]any{"query": "x", "k": "ten"}, "bad arguments for recall"},
		{"recall", map[string]any{"query": " "}, `"query" is empty`},
		{"recall", map[string]any{"query": "x", "k": 5000}, "maximum: 5000/1 is greater than 1000"},
		{"recall", map[string]any{"query": "x", "k": 0}, "minimum: 0/1 is less than 1"},
		{"recall", map[string]any{"query": "x", "folder": "/elsewhere"}, `"/elsewhere" is not a folder memd indexes, and none is registered yet`},
		{"read_note", map[string]any{"path": "notes/a.md"}, `"path" is "notes/a.md", not an absolute path`},
		{"read_note", map[string]any{"path": "/n/garden.md", "start_line": 0}, "minimum: 0/1 is less than 1"},
		{"recall", map[string]any{"query": "x", "folder": "notes"}, `"folder" is "notes", not an absolute path`},
		{"chat", map[string]any{"question": "tomatoes"}, "chat needs a generator model and none is loaded"},
		{"chat", map[string]any{"question": ""}, `"question" is empty`},
		{"add_folder", map[string]any{"path": "~/notes"}, `"path" is "~/notes", not an absolute path`},
		{"forget", map[string]any{"path": "/n/missing.md"}, "note /n/missing.md is not indexed"},
	} {
		res := ag.call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: error %v, %q; want a tool error with %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	if _, err := ag.CallTool(t.Context(), &mcp.CallToolParams{Name: "reindex"}); err == nil {
		t.Error("an unknown tool is not a protocol error")
	}
}

// TestMCPExitsWhenStdinCloses closes stdin while a recall is in flight, as
// an agent that quits does: the command must return nil, having logged
// nothing, and its stdout must have carried only the protocol.
func TestMCPExitsWhenStdinCloses(t *testing.T) {
	svc := recallFake()
	entered, release := make(chan struct{}), make(chan struct{})
	svc.RecallHook = func(ctx context.Context, _ memd.RecallRequest) (memd.RecallResult, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		// Released after memctl mcp returned, when its context has ended
		// too: select picks either at random, and an ended context must
		// win, as it would in the daemon.
		if err := ctx.Err(); err != nil { // memctl mcp gave the request up
			return memd.RecallResult{}, err
		}
		return memd.RecallResult{Hits: []memd.Hit{}}, nil
	}
	ag := startMCP(t, svc)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	called := make(chan answer, 1)
	go func() {
		res, err := ag.CallTool(context.Background(), &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "x"}})
		called <- answer{res, err}
	}()
	<-entered
	ag.stdin.Close()
	// The daemon's answer is held until memctl mcp has returned: released
	// at once, it could race the session's end (seen in make test).
	err := ag.wait()
	close(release)
	if err != nil {
		t.Fatalf("memctl mcp returned %q after stdin closed", err)
	}
	// The call given up may still have its error written before stdout
	// closes; what it must never get is the daemon's answer.
	if a := <-called; a.err == nil && !a.res.IsError {
		t.Errorf("the recall in flight was answered after stdin closed: %q", text(a.res))
	}
	if s := ag.stderr.String(); s != "" {
		t.Errorf("logged %q", s)
	}
	for line := range strings.Lines(ag.stdout.String()) {
		var msg struct {
			Version string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.Version != "2.0" {
			t.Errorf("stdout carried %q, not a JSON-RPC message", line)
		}
	}
}

// TestMCPProtocolErrors speaks to memctl mcp line by line, as a careless
// client might: a line that is not JSON is answered with a parse error and
// the session goes on; methods memd does not serve, including those of
// capabilities it does not declare, are answered -32601.
func TestMCPProtocolErrors(t *testing.T) {
	sock := servertest.Socket(t, apitest.New())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, testOptions(sock, io.Discard))
		outW.Close()
	}()
	answers := bufio.NewScanner(outR)
	ask := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !answers.Scan() {
			t.Fatalf("no answer to %s: %v", line, answers.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", answers.Text(), err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if m := ask("this is not JSON"); code(m) != -32700 || m["id"] != nil {
		t.Errorf("a line that is not JSON: %v", m)
	}
	for _, method := range []string{"nosuch/method", "prompts/list", "logging/setLevel", "completion/complete"} {
		if m := ask(`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{}}`); code(m) != -32601 {
			t.Errorf("%s: %v, want -32601", method, m)
		}
	}
	if m := ask(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); m["result"] == nil {
		t.Errorf("ping after the errors: %v", m)
	}
	if m := ask(`{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}`); !strings.Contains(fmt.Sprint(m["result"]), "file:///{+path}") {
		t.Errorf("resource templates: %v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("memctl mcp: %v", err)
	}
}

// testOptions connects to the daemon at sock and never starts one, as
// memd mcp does when one answers.
func testOptions(sock string, log io.Writer) Options {
	return Options{
		Connect: func(ctx context.Context) (*api.Client, error) { return api.Dial(ctx, sock) },
		Version: "test",
		Log:     slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// recallFake holds one note, with one chunk about tomatoes.
func recallFake() *apitest.Service {
	svc := apitest.New()
	svc.Notes["/n/garden.md"] = memd.NoteDetail{Path: "/n/garden.md", Chunks: []memd.Hit{{
		Folder: "/n", Path: "/n/garden.md", StartLine: 3, EndLine: 9, Heading: []string{"Garden", "Tomatoes"},
		Text: "## Tomatoes\n\nWater tomatoes deeply twice a week.\n", Summary: "watering", Score: 1.25, ChunkID: 7, Title: "x",
	}}}
	return svc
}

// chatFake answers chat from recallFake's note.
func chatFake() *apitest.Service {
	svc := recallFake()
	svc.ChatAnswer = "Water them deeply [1]."
	return svc
}

// The recall tool's per_note and expand reach the daemon's request.
func TestMCPRecallPerNote(t *testing.T) {
	svc := recallFake()
	ag := startMCP(t, svc)
	ag.call(t, "recall", map[string]any{"query": "tomatoes", "per_note": true, "expand": true})
	svc.Mu.Lock()
	defer svc.Mu.Unlock()
	if !svc.LastRecall.PerNote || svc.LastRecall.Expand == nil || !*svc.LastRecall.Expand {
		t.Fatalf("MCP per_note and expand: %+v", svc.LastRecall)
	}
}

// An agent reading the MCP recall tool hears of a corrected spelling too.
func TestHitsTextSaysCorrection(t *testing.T) {
	res := memd.RecallResult{Hits: recallFake().Notes["/n/garden.md"].Chunks, CorrectedQuery: "tomato water"}
	if got := hitsText("tomatos watr", res); !strings.HasPrefix(got, "showing results for \"tomato water\"\n/n/garden.md:3-9") {
		t.Fatalf("got %q", got)
	}
}
