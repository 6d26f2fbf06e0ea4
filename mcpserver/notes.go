package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memd-dev/memd"
)

// noteURITemplate names a note as an MCP resource: its file URI.
const noteURITemplate = "file:///{+path}"

// addNoteTools adds read_note and the notes as resources, so an agent can
// open the passage a recall hit points to.
func addNoteTools(s *mcp.Server, sv *tools) {
	closed := new(false)
	mcp.AddTool(s, &mcp.Tool{
		Name: "read_note",
		Description: "Read a note of the user's (an absolute path inside a folder memd indexes, such as " +
			"a path recall returned), whole or lines start_line to end_line; returns the text with line " +
			"numbers. Use it to read around a recall hit before citing it. Files outside memd's folders " +
			"are refused.",
		InputSchema: withRanges[readNoteArgs](map[string][2]int{"start_line": {1, 1 << 30}, "end_line": {1, 1 << 30}}),
		Annotations: &mcp.ToolAnnotations{Title: "Read a note", ReadOnlyHint: true, OpenWorldHint: closed},
	}, sv.mcpReadNote)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "note", Title: "A note of the user's", URITemplate: noteURITemplate, MIMEType: "text/markdown",
		Description: "A note file inside a folder memd indexes, by its file:// URI (recall's paths).",
	}, sv.mcpReadResource)
}

type readNoteArgs struct {
	Path      string `json:"path" jsonschema:"the note's absolute path, as recall returns it"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"the first line to read, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"the last line to read, inclusive (default the last line)"`
}

func (sv *tools) mcpReadNote(ctx context.Context, _ *mcp.CallToolRequest, in readNoteArgs) (*mcp.CallToolResult, memd.NoteText, error) {
	path, err := absArg("path", in.Path)
	if err != nil {
		return nil, memd.NoteText{}, err
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, memd.NoteText{}, err
	}
	defer c.Close()
	nt, err := c.NoteText(ctx, path, in.StartLine, in.EndLine)
	if err != nil {
		return nil, memd.NoteText{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d (of %d lines)\n", nt.Path, nt.StartLine, nt.EndLine, nt.Lines)
	for i, line := range strings.Split(nt.Text, "\n") {
		fmt.Fprintf(&b, "%6d  %s\n", nt.StartLine+i, line)
	}
	return textResult(b.String()), nt, nil
}

func (sv *tools) mcpReadResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
		return nil, fmt.Errorf("%q is not a note's file:// URI; use file:///absolute/path/to/note.md", req.Params.URI)
	}
	c, err := sv.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	nt, err := c.NoteText(ctx, filepath.Clean(u.Path), 0, 0)
	if err != nil {
		if errors.Is(err, memd.ErrNotFound) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mimeOf(nt.Path), Text: nt.Text}}}, nil
}

func mimeOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".org":
		return "text/org"
	case ".txt", ".text":
		return "text/plain"
	}
	return "text/markdown"
}

// withRanges is T's input schema with the ranges of whole-number fields,
// which struct tags cannot state.
func withRanges[T any](ranges map[string][2]int) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err)) // the types are memctl's own
	}
	for field, r := range ranges {
		p := s.Properties[field]
		if p == nil {
			panic(fmt.Sprintf("schema of %T has no field %q", *new(T), field))
		}
		lo, hi := float64(r[0]), float64(r[1])
		p.Minimum, p.Maximum = &lo, &hi
	}
	return s
}

// checkFolderRegistered refuses a recall filter naming a folder memd does
// not index, which would otherwise match nothing without a word.
func checkFolderRegistered(folders []memd.FolderStatus, folder string) error {
	var paths []string
	for _, f := range folders {
		if f.Path == folder {
			return nil
		}
		paths = append(paths, f.Path)
	}
	if len(paths) == 0 {
		return fmt.Errorf("%q is not a folder memd indexes, and none is registered yet; add_folder registers one", folder)
	}
	return fmt.Errorf("%q is not a folder memd indexes; the registered folders are %s (or leave \"folder\" out to search them all)",
		folder, strings.Join(paths, ", "))
}

// resourcePage is how many notes one resources/list answer holds.
const resourcePage = 200

// notesAsResources answers resources/list with the notes memd indexes, most
// linked first, a page at a time: the SDK lists only resources added up
// front, and the notes change as the folders do.
func (sv *tools) notesAsResources(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		lr, ok := req.(*mcp.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		offset := 0
		if lr.Params != nil && lr.Params.Cursor != "" {
			n, err := strconv.Atoi(lr.Params.Cursor)
			if err != nil || n < 0 {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("cursor %q is not one memd gave; start again without a cursor", lr.Params.Cursor)}
			}
			offset = n
		}
		c, err := sv.Connect(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		names, err := c.Names(ctx, memd.NamesRequest{Limit: resourcePage, Offset: offset})
		if err != nil {
			return nil, err
		}
		out := &mcp.ListResourcesResult{Resources: make([]*mcp.Resource, 0, len(names.Names))}
		for _, n := range names.Names {
			out.Resources = append(out.Resources, &mcp.Resource{URI: fileURI(n.Path), Name: n.Name, Title: n.Title,
				MIMEType: mimeOf(n.Path)})
		}
		if next := offset + len(names.Names); next < names.Total {
			out.NextCursor = strconv.Itoa(next)
		}
		return out, nil
	}
}

// fileURI is the file:// URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
