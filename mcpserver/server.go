package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/clitext"
)

// Options is what Serve needs of its host.
type Options struct {
	// Connect returns a client of the daemon, starting one when none
	// answers. Every tool call connects anew, so a daemon restarted
	// meanwhile is found (or started) again.
	Connect func(ctx context.Context) (*api.Client, error)
	// Version is announced to the agent.
	Version string
	// Log receives the server's warnings (stderr: stdout is the protocol's).
	Log *slog.Logger
}

// tools is one MCP session's tool handlers and their options.
type tools struct {
	Options
}

// Serve serves one MCP session on in and out until the agent closes in or
// ctx ends; both are a clean stop.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	sv := &tools{o}
	// The session's context ends with stdin too, so a call still in flight
	// when the agent quits is given up, not answered into a closed pipe.
	session, quit := context.WithCancel(ctx)
	defer quit()
	tr := newAgentTransport(in, out, sv.Log)
	stdin := tr.in
	stdin.onEOF = quit
	srv := newMCPServer(sv)
	srv.AddReceivingMiddleware(endingWith(session))
	ss, err := srv.Connect(session, tr, nil)
	if err != nil {
		return fmt.Errorf("start the MCP session: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	err = ss.Wait()
	// Closing stdin is how an MCP client ends a stdio session; the SDK then
	// reports the answers it could no longer send as an error.
	if ctx.Err() != nil || stdin.closed.Load() {
		return nil
	}
	return err
}

// endingWith makes each request's context end when session does too (the
// SDK's own request contexts outlive the agent's stdin).
func endingWith(session context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(session, cancel)()
			return next(ctx, method, req)
		}
	}
}

const mcpInstructions = `memd holds the user's own notes: the Markdown and text files of the folders
they registered on this machine. Call recall before answering from general
knowledge whenever the question may concern what the user wrote, decided or
planned, and cite what you use as path:line.`

// newMCPServer returns the MCP server of memctl mcp (memd mcp): one tool per daemon
// call, each opening its own client so a daemon restarted meanwhile is
// found (or started) again.
func newMCPServer(sv *tools) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memd", Title: "memd: the user's notes", Version: sv.Version},
		&mcp.ServerOptions{
			Instructions: mcpInstructions,
			// The tools never change, so no list_changed notification (the SDK
			// sends one for the tools added here, racing the session's start).
			// Declared is what is served: agentTransport refuses the rest.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
			Logger:       sv.Log,
		})
	// The hints are pointers because nil means true.
	closed, destructive := new(false), new(true)
	mcp.AddTool(s, &mcp.Tool{
		Name: "recall",
		Description: "Search the user's personal notes for the passages that best answer a query; " +
			"returns file paths, line ranges, headings and the passages' text. Use it whenever the " +
			"user's own notes, plans or past decisions may hold the answer, then cite path:line.",
		InputSchema: withRanges[recallArgs](map[string][2]int{"k": {1, memd.MaxK}}),
		Annotations: &mcp.ToolAnnotations{Title: "Recall from notes", ReadOnlyHint: true, OpenWorldHint: closed},
	}, sv.mcpRecall)
	mcp.AddTool(s, &mcp.Tool{
		Name: "chat",
		Description: "Ask memd's local model to answer a question from the user's notes; returns its " +
			"answer and the notes it cites (path:line). Prefer recall when you can read the passages " +
			"yourself; use chat when the user wants memd's own answer. Fails with a message when no " +
			"generator model is configured.",
		InputSchema: withRanges[chatArgs](map[string][2]int{"k": {1, memd.MaxChatK}}),
		Annotations: &mcp.ToolAnnotations{Title: "Ask the notes", ReadOnlyHint: true, OpenWorldHint: closed},
	}, sv.mcpChat)
	mcp.AddTool(s, &mcp.Tool{
		Name: "status",
		Description: "Show what memd holds: the registered folders, how many notes and chunks are " +
			"indexed, and how many files are still pending. Use it to check that the notes are " +
			"indexed before relying on recall, or to learn which folders exist.",
		Annotations: &mcp.ToolAnnotations{Title: "memd status", ReadOnlyHint: true, OpenWorldHint: closed},
	}, sv.mcpStatus)
	mcp.AddTool(s, &mcp.Tool{
		Name: "add_folder",
		Description: "Register a folder of notes (an absolute path) so memd indexes and watches it; " +
			"indexing runs in the background (status shows progress). Use it only when the user " +
			"asks for a folder to be added to their memory.",
		Annotations: &mcp.ToolAnnotations{Title: "Add a notes folder", DestructiveHint: closed,
			IdempotentHint: true, OpenWorldHint: closed},
	}, sv.mcpAddFolder)
	mcp.AddTool(s, &mcp.Tool{
		Name: "forget",
		Description: "Drop one note (an absolute file path) from memd's index, so recall and chat stop " +
			"returning it until the file next changes; the file itself is not touched. Use it only " +
			"when the user explicitly asks to forget or hide that note.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget a note", DestructiveHint: destructive,
			IdempotentHint: true, OpenWorldHint: closed},
	}, sv.mcpForget)
	addNoteTools(s, sv)
	s.AddReceivingMiddleware(argumentErrorsAsToolErrors, sv.notesAsResources)
	return s
}

type recallArgs struct {
	Query      string   `json:"query" jsonschema:"what to look for, in the user's words or yours"`
	K          int      `json:"k,omitempty" jsonschema:"how many passages to return, 1 to 1000 (default 10)"`
	Folder     string   `json:"folder,omitempty" jsonschema:"only notes of this registered folder (absolute path)"`
	PathPrefix string   `json:"path_prefix,omitempty" jsonschema:"only notes whose absolute path starts with this"`
	Tags       []string `json:"tags,omitempty" jsonschema:"only notes that carry every one of these tags (a tag matches the tags under it: garden matches garden/bees)"`
	PerNote    bool     `json:"per_note,omitempty" jsonschema:"one passage per note, its best, so that k counts notes"`
	Expand     *bool    `json:"expand,omitempty" jsonschema:"add the words that best mark the first passages found and search again (query expansion; absent: the daemon's default, off unless configured)"`
}

func (sv *tools) mcpRecall(ctx context.Context, _ *mcp.CallToolRequest, in recallArgs) (*mcp.CallToolResult, memd.RecallResult, error) {
	req := memd.RecallRequest{Query: in.Query, K: in.K, Filters: memd.Filters{Tags: in.Tags}, PerNote: in.PerNote, Expand: in.Expand}
	var err error
	if in.Folder != "" {
		if req.Filters.Folder, err = absArg("folder", in.Folder); err != nil {
			return nil, memd.RecallResult{}, err
		}
	}
	if in.PathPrefix != "" {
		if err := requireAbs("path_prefix", in.PathPrefix); err != nil {
			return nil, memd.RecallResult{}, err
		}
		if req.Filters.PathPrefix, err = clitext.AbsPrefix(in.PathPrefix); err != nil {
			return nil, memd.RecallResult{}, err
		}
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, memd.RecallResult{}, err
	}
	defer c.Close()
	if req.Filters.Folder != "" {
		folders, err := c.Folders(ctx)
		if err != nil {
			return nil, memd.RecallResult{}, err
		}
		if err := checkFolderRegistered(folders, req.Filters.Folder); err != nil {
			return nil, memd.RecallResult{}, err
		}
	}
	res, err := c.Recall(ctx, req)
	if err != nil {
		return nil, memd.RecallResult{}, err
	}
	return textResult(hitsText(in.Query, res)), res, nil
}

// hitsText is recall's answer for a model to read: each hit as
// "path:start-end  heading" and its whole text, since the model cannot
// open the rest of an excerpt as a person can.
func hitsText(query string, res memd.RecallResult) string {
	var b strings.Builder
	if res.CorrectedQuery != "" {
		fmt.Fprintf(&b, "showing results for %q\n", res.CorrectedQuery)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(&b, "nothing in the notes matches %q\n", query)
	}
	for i, h := range res.Hits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:%d-%d", h.Path, h.StartLine, h.EndLine)
		if len(h.Heading) > 0 {
			b.WriteString("  " + strings.Join(h.Heading, " > "))
		}
		fmt.Fprintf(&b, "  (score %.3f)\n", h.Score)
		for line := range strings.SplitSeq(strings.TrimRight(h.Text, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	for _, w := range res.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	return b.String()
}

type chatArgs struct {
	Question string `json:"question" jsonschema:"the question to answer from the user's notes"`
	K        int    `json:"k,omitempty" jsonschema:"how many passages of the notes to give the model, 1 to 50 (default 6)"`
}

// chatAnswer is what the chat tool returns: the answer and the notes it
// cites.
type chatAnswer struct {
	Answer    string          `json:"answer"`
	Citations []memd.Citation `json:"citations"`
	Warnings  []string        `json:"warnings,omitempty"`
}

func (sv *tools) mcpChat(ctx context.Context, _ *mcp.CallToolRequest, in chatArgs) (*mcp.CallToolResult, chatAnswer, error) {
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, chatAnswer{}, errors.New(`"question" is empty; pass the question to answer`)
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, chatAnswer{}, err
	}
	defer c.Close()
	res, err := c.Chat(ctx, memd.ChatRequest{K: in.K, Messages: []memd.Message{{Role: memd.RoleUser, Content: q}}}, nil)
	if err != nil {
		return nil, chatAnswer{}, err
	}
	out := chatAnswer{Answer: strings.TrimSpace(res.Message.Content), Citations: res.Citations, Warnings: res.Warnings}
	if out.Citations == nil {
		out.Citations = []memd.Citation{}
	}
	var b strings.Builder
	b.WriteString(out.Answer + "\n")
	clitext.Sources(&b, res)
	for _, w := range res.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	return textResult(b.String()), out, nil
}

// mcpStatus is the status tool's answer: the counts and folders an agent
// needs, without the daemon's internals.
type mcpStatus struct {
	Notes    int                 `json:"notes"`
	Chunks   int                 `json:"chunks"`
	Pending  int                 `json:"pending"`
	Skipped  int                 `json:"skipped"`
	Folders  []memd.FolderStatus `json:"folders"`
	Warnings []string            `json:"warnings,omitempty"`
}

func (sv *tools) mcpStatus(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, mcpStatus, error) {
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, mcpStatus{}, err
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return nil, mcpStatus{}, err
	}
	out := mcpStatus{Notes: st.Notes, Chunks: st.Chunks, Pending: st.Pending, Skipped: st.Skipped,
		Folders: append([]memd.FolderStatus{}, st.Folders...), Warnings: st.Warnings}
	var b strings.Builder
	clitext.Status(&b, st)
	return textResult(b.String()), out, nil
}

type folderArgs struct {
	Path string `json:"path" jsonschema:"the folder's absolute path"`
}

type noteArgs struct {
	Path string `json:"path" jsonschema:"the note file's absolute path"`
}

func (sv *tools) mcpAddFolder(ctx context.Context, _ *mcp.CallToolRequest, in folderArgs) (*mcp.CallToolResult, memd.FolderStatus, error) {
	dir, err := absArg("path", in.Path)
	if err != nil {
		return nil, memd.FolderStatus{}, err
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, memd.FolderStatus{}, err
	}
	defer c.Close()
	before, err := c.Folders(ctx)
	if err != nil {
		return nil, memd.FolderStatus{}, err
	}
	f, err := c.AddFolder(ctx, dir)
	if err != nil {
		return nil, memd.FolderStatus{}, err
	}
	// The daemon's answer to a registration does not count the notes it
	// already holds; its folder list from before does.
	if i := slices.IndexFunc(before, func(g memd.FolderStatus) bool { return g.Path == f.Path }); i >= 0 {
		f = before[i]
		return textResult(fmt.Sprintf("%s was already registered: %d notes indexed, %s", f.Path, f.Notes, watchWord(f.Watching))), f, nil
	}
	return textResult(fmt.Sprintf("added %s; memd indexes it in the background (the status tool shows what is pending)", f.Path)), f, nil
}

func watchWord(watching bool) string {
	if watching {
		return "watched for changes"
	}
	return "not watched now (the status tool says why)"
}

func (sv *tools) mcpForget(ctx context.Context, _ *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, memd.Removed, error) {
	path, err := absArg("path", in.Path)
	if err != nil {
		return nil, memd.Removed{}, err
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, memd.Removed{}, err
	}
	defer c.Close()
	if err := c.Forget(ctx, path); err != nil {
		return nil, memd.Removed{}, err
	}
	text := fmt.Sprintf("forgot %s; it stays out of the index until the file changes", path)
	return textResult(text), memd.Removed{Path: path, Removed: true}, nil
}

// absArg refuses a relative path: memctl mcp runs in whatever folder the
// agent started it from, so a relative path would name the wrong file.
func absArg(name, p string) (string, error) {
	if err := requireAbs(name, p); err != nil {
		return "", err
	}
	return clitext.AbsPath(p)
}

// requireAbs refuses a relative path: an agent's working folder is not the
// user's.
func requireAbs(name, p string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%q is %q, not an absolute path; pass the full path, such as /home/you/notes", name, p)
	}
	return nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// argumentErrorsAsToolErrors answers arguments that fail a tool's schema
// with a tool error rather than the SDK's protocol error, so the agent's
// model sees what was wrong and can call again (as the 2025-11-25 spec
// asks). An unknown tool stays a protocol error.
func argumentErrorsAsToolErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var wire *jsonrpc.Error
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams ||
			strings.HasPrefix(wire.Message, "unknown tool") {
			return res, err
		}
		r := textResult(fmt.Sprintf("bad arguments for %s: %v", call.Params.Name, err))
		r.IsError = true
		return r, nil
	}
}
