package main

import (
	"os/exec"
	"strings"
	"testing"
)

// memctl is a client: it links the wire vocabulary (package memd) and the
// typed client (api), never the daemon. What needs the store or the
// llama.cpp binding it asks the daemon, or `memd check`. Nor does it link
// what only a long-running or rare command needs and whose package init
// every start would pay (the binary answers recall, where start-up is most
// of the time): the MCP server, the LSP server and model downloads are
// memd's, which memctl mcp, memctl lsp and memctl model pull run.
func TestMemctlLinksNoDaemon(t *testing.T) {
	// go test puts the go that runs it first on PATH.
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{
		"github.com/memd-dev/memd/internal/bbolt",
		"github.com/fsnotify/fsnotify",
		"github.com/ebitengine/purego",
		"github.com/memd-dev/memd/pipeline",
		"github.com/memd-dev/memd/store",
		"github.com/memd-dev/memd/memory",
		"github.com/memd-dev/memd/server",
		"github.com/memd-dev/memd/inference/llama",
		"github.com/memd-dev/memd/mcpserver",
		"github.com/memd-dev/memd/inference/hub",
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/google/jsonschema-go",
		"github.com/memd-dev/memd/lsp",
		"github.com/sourcegraph/jsonrpc2",
		"net/http",
		"crypto/tls",
		"crypto/x509",
		"mime/multipart",
		"encoding/xml",
	}
	for dep := range strings.FieldsSeq(string(out)) {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				t.Errorf("memctl links %s", dep)
			}
		}
	}
}
