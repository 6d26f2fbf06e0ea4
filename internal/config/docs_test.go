package config

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListEveryKey: docs/config.md has a row for every setting, with
// its flag and variable, so the reference cannot fall behind the code.
func TestDocsListEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = line
		}
	}
	for _, k := range Keys() {
		row, ok := rows[k.Name]
		if !ok {
			t.Errorf("docs/config.md has no row for %s", k.Name)
			continue
		}
		if !strings.Contains(row, "`--"+k.Flag) || !strings.Contains(row, "`"+k.Env) {
			t.Errorf("docs/config.md's row for %s does not name --%s and %s:\n%s", k.Name, k.Flag, k.Env, row)
		}
	}
}
