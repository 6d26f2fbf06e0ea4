package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPAgainstDaemon runs what an agent runs: the real memctl binary's
// `mcp` command as a child process speaking MCP on its stdio, in front of a
// real memd. The agent registers a folder, waits for it through the status
// tool, recalls a passage and forgets its note.
func TestMCPAgainstDaemon(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	notes := filepath.Join(dir, "notes")
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	garden := filepath.Join(notes, "garden.md")
	writeNote(t, garden, "# Garden\n\n## Tomatoes\n\nWater the tomatoes deeply twice a week in July.\n")
	writeNote(t, filepath.Join(notes, "bikes.md"), "# Bikes\n\nThe chain wants oil every 300 km.\n")
	startDaemon(t, data, sock)

	cmd := exec.Command(filepath.Join(binDir, "memctl"), "--data", data, "--socket", sock, "mcp")
	cmd.Env = append(os.Environ(), "MEMD_DATA=", "MEMD_SOCKET=")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any, out any) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError {
			t.Fatalf("%s: tool error %s", name, text.String())
		}
		if out != nil {
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatalf("%s: %v in %s", name, err, b)
			}
		}
		return text.String()
	}

	call("add_folder", map[string]any{"path": notes}, nil)
	eventually(t, 20*time.Second, "the folder is indexed", func() (bool, string) {
		var st struct{ Notes, Pending int }
		text := call("status", nil, &st)
		return st.Notes == 2 && st.Pending == 0, text
	})
	var got struct {
		Hits []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			Text      string `json:"text"`
		} `json:"hits"`
	}
	text := call("recall", map[string]any{"query": "how often should I water tomatoes", "k": 3}, &got)
	if len(got.Hits) == 0 || got.Hits[0].Path != garden || !strings.Contains(got.Hits[0].Text, "twice a week") {
		t.Fatalf("recall: %+v\n%s", got.Hits, text)
	}
	if !strings.Contains(text, garden+":") {
		t.Errorf("recall's text names no path:line: %q", text)
	}

	// The agent reads the passage the hit names, and around it.
	var note struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
		Lines     int    `json:"lines"`
		Text      string `json:"text"`
	}
	text = call("read_note", map[string]any{"path": garden, "start_line": got.Hits[0].StartLine, "end_line": 5}, &note)
	if note.Path != garden || note.EndLine != 5 || note.Lines != 5 || !strings.Contains(note.Text, "twice a week") ||
		!strings.Contains(text, "     5  Water the tomatoes") {
		t.Fatalf("read_note: %+v\n%s", note, text)
	}
	lr, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(lr.Resources) != 2 || lr.NextCursor != "" {
		t.Fatalf("the notes as resources: %+v, %v", lr, err)
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file://" + garden})
	if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "# Garden\n") {
		t.Fatalf("the note as a resource: %+v, %v", rr, err)
	}
	outside := filepath.Join(dir, "secret.md")
	writeNote(t, outside, "# Secret\n")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"path": outside}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not inside any folder memd indexes") {
		t.Fatalf("read_note outside the folders: %+v, %v", res, err)
	}

	// Adding the folder again reports what it holds, not an empty folder.
	var f struct {
		Notes    int  `json:"notes"`
		Watching bool `json:"watching"`
	}
	text = call("add_folder", map[string]any{"path": notes}, &f)
	if f.Notes != 2 || !f.Watching || !strings.Contains(text, "already registered: 2 notes") {
		t.Fatalf("add_folder of a watched folder: %+v, %q", f, text)
	}

	call("forget", map[string]any{"path": garden}, nil)
	call("recall", map[string]any{"query": "tomatoes"}, &got)
	for _, h := range got.Hits {
		if h.Path == garden {
			t.Fatalf("recall after forget still returns %s", garden)
		}
	}
}

func writeNote(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
