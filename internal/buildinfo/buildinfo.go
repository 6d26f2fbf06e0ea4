package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// LinkVersion and LinkCommit are set at link time where Go records no
// version or commit: a build with -buildvcs=false, or from a git worktree,
// which Go does not stamp. The Makefile sets LinkCommit from git:
// -ldflags "-X github.com/memd-dev/memd/internal/buildinfo.LinkCommit=…".
var LinkVersion, LinkCommit string

// Info is what the build recorded.
type Info struct {
	Version  string // the module version, "(devel)" for a build from a checkout
	Commit   string // the VCS revision, empty when none was recorded
	Modified bool   // the checkout had changes beside Commit
}

// Read returns what the running binary's build recorded.
func Read() Info {
	info := Info{Version: "(devel)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info = fromBuild(bi)
	}
	return info.linked(LinkVersion, LinkCommit)
}

// linked fills in what the build did not record from the link-time values.
func (i Info) linked(version, commit string) Info {
	if version != "" {
		i.Version = version
	}
	if i.Commit == "" && commit != "" {
		i.Commit = strings.TrimSuffix(commit, "+modified")
		i.Modified = strings.HasSuffix(commit, "+modified")
	}
	return i
}

func fromBuild(bi *debug.BuildInfo) Info {
	info := Info{Version: bi.Main.Version}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// Version is the short form for logs and status: the module version
// (which for a checkout build already carries the commit, as in
// v0.0.0-20261203101500-408cdb2f1a2b+dirty), else the commit.
func Version() string {
	return Read().short()
}

func (i Info) short() string {
	if i.Version != "(devel)" || i.Commit == "" {
		return i.Version
	}
	return "commit " + i.abbrev()
}

func (i Info) abbrev() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "+modified"
	}
	return c
}

// String is the --version line: the version and the commit it came from.
func String() string {
	return Read().line()
}

func (i Info) line() string {
	if i.Commit == "" {
		return i.Version + " (no commit recorded: built outside a git checkout, or with -buildvcs=false and not by make)"
	}
	return fmt.Sprintf("%s (commit %s)", i.Version, i.abbrev())
}
