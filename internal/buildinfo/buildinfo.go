package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Override is set at link time (-ldflags "-X github.com/memd-dev/memd/internal/buildinfo.Override=v1.2.3")
// by a packager whose build has no module version or VCS information.
var Override = ""

// Info is what the build recorded.
type Info struct {
	Version  string // the module version, "(devel)" for a build from a checkout
	Commit   string // the VCS revision, empty when none was recorded
	Modified bool   // the checkout had changes beside Commit
}

// Read returns what the running binary's build recorded.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(devel)"}
	}
	return fromBuild(bi)
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

// Version is the short form for logs and status: the link-time override,
// else the module version (which for a checkout build already carries the
// commit, as in v0.0.0-20261203101500-408cdb2f1a2b+dirty), else the commit.
func Version() string {
	if Override != "" {
		return Override
	}
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
	return Read().line(Override)
}

func (i Info) line(override string) string {
	v := i.Version
	if override != "" {
		v = override
	}
	if i.Commit == "" {
		return v + " (no commit recorded: built outside a git checkout or with -buildvcs=false)"
	}
	return fmt.Sprintf("%s (commit %s)", v, i.abbrev())
}
