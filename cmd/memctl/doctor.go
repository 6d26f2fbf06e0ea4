package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/clitext"
)

func newDoctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the socket, data folder, store, folders and llama.cpp runtime",
		Long: `Check the socket, data folder, store, folders and llama.cpp runtime, and
say how to fix what is wrong. doctor does not start memd.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := a.diagnose(cmd.Context())
			failed := 0
			for _, c := range checks {
				if c.Status == memd.CheckFail {
					failed++
				}
			}
			if a.json {
				if err := a.printJSON(struct {
					Checks []memd.Check `json:"checks"`
				}{checks}); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					fmt.Fprintf(a.out, "%-4s  %-8s %s\n", c.Status, c.Name, c.Detail)
					if c.Fix != "" {
						fmt.Fprintf(a.out, "      %-8s fix: %s\n", "", c.Fix)
					}
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d checks failed", failed, len(checks))
			}
			return nil
		},
	}
}

func (a *app) diagnose(ctx context.Context) []memd.Check {
	var checks []memd.Check
	st, sockCheck := a.checkSocket(ctx)
	checks = append(checks, sockCheck, checkDataDir(a.data))
	parts := []string{"runtime"}
	if st == nil {
		parts = append(parts, "store") // memd holds the store while it runs
	}
	offline := a.memdCheck(ctx, parts...)
	var folders []string
	if st != nil {
		checks = append(checks, memd.Check{Name: "store", Status: memd.CheckOK,
			Detail: fmt.Sprintf("%s: %d notes, %d chunks, %s (read through memd)", filepath.Join(a.data, "memd.db"),
				st.Notes, st.Chunks, clitext.Bytes(st.DBBytes))})
		for _, f := range st.Folders {
			folders = append(folders, f.Path)
		}
	} else {
		c := offline.Store.Check
		if c.Status == memd.CheckOK {
			c.Detail += ", " + clitext.Bytes(offline.Store.Bytes)
		}
		checks = append(checks, c)
		folders = offline.Store.Folders
	}
	checks = append(checks, checkFolders(folders))
	return append(checks, withLoadedModels(*offline.Runtime, st))
}

// memdCheck runs `memd check` for the parts named, the checks that need
// memd's own code (the store, the llama.cpp binding), so memctl links
// neither. Without a memd to run, each part fails and says so.
func (a *app) memdCheck(ctx context.Context, parts ...string) memd.CheckReport {
	r, err := a.runMemdCheck(ctx, parts)
	if err != nil {
		fail := func(name string) memd.Check {
			return memd.Check{Name: name, Status: memd.CheckFail,
				Detail: "memctl asks memd to check the " + name + " and could not: " + err.Error(),
				Fix:    "install memd beside memctl or on PATH (go install github.com/memd-dev/memd/cmd/memd@latest)"}
		}
		r = memd.CheckReport{}
		for _, p := range parts {
			if p == "store" {
				r.Store = &memd.StoreReport{Check: fail(p)}
			} else {
				c := fail(p)
				r.Runtime = &c
			}
		}
	}
	return r
}

// runMemdCheck execs `memd check --json` with memctl's data folder and
// llama.cpp folder. memd exits 1 when a check fails; its report is still
// the answer.
func (a *app) runMemdCheck(ctx context.Context, parts []string) (memd.CheckReport, error) {
	var r memd.CheckReport
	bin, err := autostart.FindMemd()
	if err != nil {
		return r, err
	}
	args := append([]string{"check", "--json", "--data", a.data}, parts...)
	if a.cfg.LibDir != "" {
		args = append(args, "--lib-dir", a.cfg.LibDir)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	if err := json.Unmarshal(out, &r); err != nil || (r.Store == nil && r.Runtime == nil) {
		return r, fmt.Errorf("%s check: %v %s", bin, errors.Join(runErr, err), strings.TrimSpace(stderr.String()))
	}
	for _, p := range parts {
		if (p == "store" && r.Store == nil) || (p == "runtime" && r.Runtime == nil) {
			return r, fmt.Errorf("%s check did not report the %s; is it a memd of another version?", bin, p)
		}
	}
	return r, nil
}

func (a *app) checkSocket(ctx context.Context) (*memd.Status, memd.Check) {
	c := memd.Check{Name: "socket"}
	if !autostart.Answers(a.socket) {
		c.Status, c.Detail = memd.CheckFail, "nothing answers on "+a.socket
		c.Fix = "run `memctl status` to start memd in the background, or `memd --socket " + a.socket + "` to see why it does not start"
		return nil, c
	}
	cl := api.NewClient(a.socket)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := cl.Status(ctx)
	if err != nil {
		c.Status, c.Detail = memd.CheckFail, fmt.Sprintf("%s accepts connections but status failed: %s", a.socket, describe(err))
		c.Fix = "see memd's log (" + filepath.Join(a.data, "memd.log") + " when memctl started it) and restart memd"
		return nil, c
	}
	c.Status, c.Detail = memd.CheckOK, fmt.Sprintf("memd %s (pid %d) answers on %s", st.Version, st.PID, a.socket)
	return &st, c
}

func checkDataDir(dir string) memd.Check {
	c := memd.Check{Name: "data"}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail, c.Fix = memd.CheckWarn, dir+" does not exist yet", "memd creates it when it first starts"
	case err != nil:
		c.Status, c.Detail, c.Fix = memd.CheckFail, err.Error(), "pass a data folder you can read with --data or MEMD_DATA"
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = memd.CheckFail, dir+" is not a folder", "move it away, or pass another --data"
	case fi.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail = memd.CheckWarn, fmt.Sprintf("%s is open to other users (%v); your notes' index is in it", dir, fi.Mode().Perm())
		c.Fix = "chmod 700 " + dir
	default:
		c.Status, c.Detail = memd.CheckOK, dir+" is private (0700)"
	}
	return c
}

func checkFolders(folders []string) memd.Check {
	c := memd.Check{Name: "folders"}
	if len(folders) == 0 {
		c.Status, c.Detail, c.Fix = memd.CheckWarn, "no folders registered", "memctl add DIR"
		return c
	}
	var gone []string
	for _, f := range folders {
		if fi, err := os.Stat(f); err != nil || !fi.IsDir() {
			gone = append(gone, f)
		}
	}
	if len(gone) > 0 {
		c.Status = memd.CheckWarn
		c.Detail = fmt.Sprintf("%d of %d folders are missing: %s", len(gone), len(folders), strings.Join(gone, ", "))
		c.Fix = "bring them back (memd picks them up again), or `memctl rm " + gone[0] + "`"
		return c
	}
	c.Status, c.Detail = memd.CheckOK, fmt.Sprintf("%d folders, all present", len(folders))
	return c
}

// withLoadedModels adds to memd check's runtime verdict what the running
// daemon (st, nil when none answers) says of its models: which are loaded,
// and a GPU build whose model runs on the CPU, which found no GPU.
func withLoadedModels(c memd.Check, st *memd.Status) memd.Check {
	if st == nil || c.Status != memd.CheckOK {
		return c
	}
	var loaded []string
	for _, m := range st.Models {
		if !m.Loaded {
			continue
		}
		loaded = append(loaded, m.Role)
		if m.Build != "" && m.Build != "cpu" && m.Backend == "cpu" && c.Status != memd.CheckWarn {
			c.Status = memd.CheckWarn
			c.Fix = "install the GPU driver's " + m.Build + " runtime, or `memd runtime install --backend cpu`"
			c.Detail += fmt.Sprintf("; the %s build found no GPU, so the %s runs on the CPU", m.Build, m.Role)
		}
	}
	if len(loaded) == 0 {
		c.Detail += "; memd has no model loaded"
	} else {
		c.Detail += "; memd has loaded: " + strings.Join(loaded, ", ")
	}
	return c
}
