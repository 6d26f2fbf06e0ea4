package memd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAPIDocsNameEveryRouteAndCode: docs/api.md names every route and
// every error code this package declares, read from the source, so a new
// one cannot go undocumented.
func TestAPIDocsNameEveryRouteAndCode(t *testing.T) {
	doc, err := os.ReadFile("docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range []string{"routes.go", "errors.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				return true
			}
			name := vs.Names[0].Name
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !(strings.HasPrefix(name, "Route") || strings.HasPrefix(name, "Code")) {
				return true
			}
			v, _ := strconv.Unquote(lit.Value)
			want := "`" + v + "`" // a code, as the table writes it
			if strings.HasPrefix(name, "Route") {
				want = " " + v // a route, after its method: "GET /v1/status"
			}
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/api.md does not name %s (%s)", v, name)
			}
			return true
		})
	}
}
