package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "408cdb2f1a2b3c4d5e6f"}, {Key: "vcs.modified", Value: "true"}}}
	released := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}
	for _, tc := range []struct {
		bi          *debug.BuildInfo
		short, full string
	}{
		{checkout, "commit 408cdb2f1a2b+modified", "(devel) (commit 408cdb2f1a2b+modified)"},
		{released, "v1.4.0", "v1.4.0 (no commit recorded"},
	} {
		i := fromBuild(tc.bi)
		if got := i.short(); got != tc.short {
			t.Errorf("short() = %q, want %q", got, tc.short)
		}
		full := i.line()
		if !strings.HasPrefix(full, tc.full) {
			t.Errorf("full = %q, want %q", full, tc.full)
		}
	}
}

func TestLinked(t *testing.T) {
	i := Info{Version: "(devel)"}.linked("", "99e5b3e46057aa+modified")
	if got := i.line(); got != "(devel) (commit 99e5b3e46057+modified)" {
		t.Errorf("line() = %q", got)
	}
	recorded := Info{Version: "(devel)", Commit: "408cdb2f1a2b"}.linked("", "99e5b3e46057")
	if recorded.Commit != "408cdb2f1a2b" {
		t.Errorf("a link-time commit replaced the recorded one: %+v", recorded)
	}
}
