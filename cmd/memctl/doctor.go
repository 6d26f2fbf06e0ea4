package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/inference/llama"
	llamart "github.com/memd-dev/memd/inference/runtime"
	"github.com/memd-dev/memd/store"
)

// Check outcomes.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
)

// check is one line of doctor's report.
type check struct {
	Name   string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

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
				if c.Status == checkFail {
					failed++
				}
			}
			if a.json {
				if err := a.printJSON(struct {
					Checks []check `json:"checks"`
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

func (a *app) diagnose(ctx context.Context) []check {
	var checks []check
	st, sockCheck := a.checkSocket(ctx)
	checks = append(checks, sockCheck, checkDataDir(a.data))
	var folders []string
	if st != nil {
		checks = append(checks, check{Name: "store", Status: checkOK,
			Detail: fmt.Sprintf("%s: %d notes, %d chunks, %s (read through memd)", filepath.Join(a.data, "memd.db"),
				st.Notes, st.Chunks, formatBytes(st.DBBytes))})
		for _, f := range st.Folders {
			folders = append(folders, f.Path)
		}
	} else {
		c, fs := checkStore(filepath.Join(a.data, "memd.db"))
		checks = append(checks, c)
		folders = fs
	}
	checks = append(checks, checkFolders(folders))
	return append(checks, checkRuntime(st, a.cfg.LibDir))
}

func (a *app) checkSocket(ctx context.Context) (*memd.Status, check) {
	c := check{Name: "socket"}
	if !answers(a.socket) {
		c.Status, c.Detail = checkFail, "nothing answers on "+a.socket
		c.Fix = "run `memctl status` to start memd in the background, or `memd --socket " + a.socket + "` to see why it does not start"
		return nil, c
	}
	cl := api.NewClient(a.socket)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := cl.Status(ctx)
	if err != nil {
		c.Status, c.Detail = checkFail, fmt.Sprintf("%s accepts connections but status failed: %s", a.socket, describe(err))
		c.Fix = "see memd's log (" + filepath.Join(a.data, "memd.log") + " when memctl started it) and restart memd"
		return nil, c
	}
	c.Status, c.Detail = checkOK, fmt.Sprintf("memd %s (pid %d) answers on %s", st.Version, st.PID, a.socket)
	return &st, c
}

func checkDataDir(dir string) check {
	c := check{Name: "data"}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail, c.Fix = checkWarn, dir+" does not exist yet", "memd creates it when it first starts"
	case err != nil:
		c.Status, c.Detail, c.Fix = checkFail, err.Error(), "pass a data folder you can read with --data or MEMD_DATA"
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = checkFail, dir+" is not a folder", "move it away, or pass another --data"
	case fi.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail = checkWarn, fmt.Sprintf("%s is open to other users (%v); your notes' index is in it", dir, fi.Mode().Perm())
		c.Fix = "chmod 700 " + dir
	default:
		c.Status, c.Detail = checkOK, dir+" is private (0700)"
	}
	return c
}

// checkStore opens the store while no daemon answers, to see that it is
// readable and of a schema this memd knows, and lists its folders.
func checkStore(path string) (check, []string) {
	c := check{Name: "store"}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = checkWarn, path+" does not exist yet", "memd creates it when it first starts; then `memctl add DIR`"
		return c, nil
	}
	db, err := store.Open(path, store.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		c.Status, c.Detail = checkFail, err.Error()
		if errors.Is(err, store.ErrLocked) {
			c.Fix = "a memd that does not answer on this socket holds it: find it with `pgrep -a memd`, or pass the --socket it listens on"
		}
		return c, nil
	}
	defer db.Close()
	var folders []string
	var counts store.Counts
	err = db.View(func(tx *store.Tx) error {
		counts = tx.Counts()
		fs, err := tx.Folders()
		for _, f := range fs {
			folders = append(folders, f.Path)
		}
		return err
	})
	if err != nil {
		c.Status, c.Detail = checkFail, fmt.Sprintf("%s opens but cannot be read: %v", path, err)
		c.Fix = "move it aside; memd re-indexes your folders into a new one (register them again with memctl add)"
		return c, nil
	}
	c.Status = checkOK
	c.Detail = fmt.Sprintf("%s: %d notes, %d chunks, %s", path, counts.Notes, counts.Chunks, formatBytes(db.Size()))
	return c, folders
}

func checkFolders(folders []string) check {
	c := check{Name: "folders"}
	if len(folders) == 0 {
		c.Status, c.Detail, c.Fix = checkWarn, "no folders registered", "memctl add DIR"
		return c
	}
	var gone []string
	for _, f := range folders {
		if fi, err := os.Stat(f); err != nil || !fi.IsDir() {
			gone = append(gone, f)
		}
	}
	if len(gone) > 0 {
		c.Status = checkWarn
		c.Detail = fmt.Sprintf("%d of %d folders are missing: %s", len(gone), len(folders), strings.Join(gone, ", "))
		c.Fix = "bring them back (memd picks them up again), or `memctl rm " + gone[0] + "`"
		return c
	}
	c.Status, c.Detail = checkOK, fmt.Sprintf("%d folders, all present", len(folders))
	return c
}

// checkRuntime looks for the llama.cpp libraries that local models need,
// where memd would: the configured lib_dir, MEMD_LLAMA_LIB, else the
// installed builds in the cache.
func checkRuntime(st *memd.Status, libDir string) check {
	c := check{Name: "runtime"}
	dir, err := llamart.Find(llamart.Options{LibDir: libDir})
	if err != nil {
		c.Fix = "`memd runtime install`, or set MEMD_LLAMA_LIB to a folder holding libllama"
		if os.Getenv(llamart.EnvLibDir) != "" {
			c.Status, c.Detail = checkFail, err.Error()
			return c
		}
		c.Status = checkWarn
		c.Detail = "no llama.cpp runtime: models are off, so memd chunks with its heuristic and recalls with BM25 only"
		return c
	}
	c.Status, c.Detail = checkOK, "llama.cpp in "+dir
	lib, err := llama.FindLibrary(dir)
	if err == nil {
		c.Detail = fmt.Sprintf("llama.cpp %s (%s) in %s", lib.Version, lib.Backend, dir)
	}
	if st != nil {
		var loaded []string
		for _, m := range st.Models {
			if !m.Loaded {
				continue
			}
			loaded = append(loaded, m.Role)
			// memd's own facts: the build it loaded, and where the model runs.
			if m.Build != "" && m.Build != "cpu" && m.Backend == "cpu" && c.Status != checkWarn {
				c.Status = checkWarn
				c.Fix = "install the GPU driver's " + m.Build + " runtime, or `memd runtime install --backend cpu`"
				c.Detail += fmt.Sprintf("; the %s build found no GPU, so the %s runs on the CPU", m.Build, m.Role)
			}
		}
		if len(loaded) == 0 {
			c.Detail += "; memd has no model loaded"
		} else {
			c.Detail += "; memd has loaded: " + strings.Join(loaded, ", ")
		}
	}
	return c
}
