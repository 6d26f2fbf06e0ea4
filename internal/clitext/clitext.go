package clitext

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/memd-dev/memd"
)

// Status writes a daemon's status as memctl status prints it.
func Status(w io.Writer, st memd.Status) {
	fmt.Fprintf(w, "memd %s, pid %d, data %s (store %s)\n", st.Version, st.PID, st.DataDir, Bytes(st.DBBytes))
	fmt.Fprintf(w, "%d notes, %d chunks, %d pending, %d skipped\n", st.Notes, st.Chunks, st.Pending, st.Skipped)
	if st.Enriching > 0 {
		fmt.Fprintf(w, "%d notes findable by keyword, waiting for the model stages\n", st.Enriching)
	}
	if len(st.Folders) == 0 {
		fmt.Fprintln(w, "no folders yet: memctl add DIR")
	} else {
		fmt.Fprintln(w, "folders:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, f := range st.Folders {
			state := "watching"
			if !f.Watching {
				state = "not watching"
			}
			if f.Error != "" {
				state += ": " + f.Error
			}
			fmt.Fprintf(tw, "  %s\t%d notes\t%s\n", f.Path, f.Notes, state)
		}
		tw.Flush()
	}
	for _, m := range st.Models {
		if m.Loaded {
			fmt.Fprintf(w, "model %s: %s (%s)\n", m.Role, m.Path, Backend(m))
		} else if m.Reason != "" {
			fmt.Fprintf(w, "model %s: off, %s\n", m.Role, m.Reason)
		}
	}
	for _, warn := range st.Warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
}

// Bytes is n in B, KiB, MiB, ….
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Backend is where a model runs, e.g. "cuda, NVIDIA H200".
func Backend(m memd.ModelStatus) string {
	if m.Device == "" {
		return m.Backend
	}
	return m.Backend + ", " + m.Device
}

// Sources writes the cited notes as "path:line: [n] heading", or
// when the answer cites none, the sources it was given.
func Sources(w io.Writer, res memd.ChatResult) {
	type line struct {
		n     int
		path  string
		start int
		head  []string
	}
	var lines []line
	for _, c := range res.Citations {
		lines = append(lines, line{c.N, c.Path, c.StartLine, c.Heading})
	}
	label := "sources"
	if len(lines) == 0 {
		label = "sources given (none cited)"
		for _, s := range res.Sources {
			lines = append(lines, line{s.N, s.Path, s.StartLine, s.Heading})
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", label)
	for _, l := range lines {
		fmt.Fprintf(w, "%s:%d: [%d]", l.path, l.start, l.n)
		if len(l.head) > 0 {
			fmt.Fprintf(w, " %s", strings.Join(l.head, " > "))
		}
		fmt.Fprintln(w)
	}
}

// AbsPrefix is AbsPath for a path prefix: a trailing "/" (only notes
// inside that folder) survives.
func AbsPrefix(p string) (string, error) {
	abs, err := AbsPath(p)
	if err == nil && strings.HasSuffix(p, "/") && !strings.HasSuffix(abs, "/") {
		abs += "/"
	}
	return abs, err
}

// AbsPath makes a path from the command line absolute, resolving symlinks
// where the file exists, since the daemon knows files by their real path.
func AbsPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("make %s absolute: %w", p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	// A file that is gone (forget, rm) still has a folder that may exist.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs)), nil
	}
	return abs, nil
}
