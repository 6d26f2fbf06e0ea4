package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference/llama"
	llamart "github.com/memd-dev/memd/inference/runtime"
	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/store"
)

// The parts `memd check` can check.
const (
	checkStorePart   = "store"
	checkRuntimePart = "runtime"
)

// newCheckCmd is `memd check [store] [runtime]`: the checks that need
// memd's own code, made without a running daemon, so that memctl doctor
// links neither the store nor the llama.cpp binding.
func newCheckCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [store] [runtime]",
		Short: "Check the store file and the llama.cpp runtime without starting the daemon",
		Long: `Check that the store file opens and reads (only while no memd holds it)
and that a llama.cpp runtime memd accepts is installed. With no arguments
it checks both. It exits 1 when a check fails; memctl doctor runs it.`,
		ValidArgs: []string{checkStorePart, checkRuntimePart},
		Args:      cobra.OnlyValidArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd.Flags())
			if err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{checkStorePart, checkRuntimePart}
			}
			var r memd.CheckReport
			if slices.Contains(args, checkStorePart) {
				st := storeVerdict(filepath.Join(cfg.Data, "memd.db"))
				r.Store = &st
			}
			if slices.Contains(args, checkRuntimePart) {
				rt := runtimeVerdict(cfg.LibDir)
				r.Runtime = &rt
			}
			if err := printCheckReport(cmd.OutOrStdout(), r, asJSON); err != nil {
				return err
			}
			if (r.Store != nil && r.Store.Status == memd.CheckFail) || (r.Runtime != nil && r.Runtime.Status == memd.CheckFail) {
				cmd.SilenceErrors = true
				return errCheckFailed
			}
			return nil
		},
	}
	config.RegisterFlags(cmd.Flags(), "data", "lib_dir")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON (memd.CheckReport)")
	return cmd
}

// errCheckFailed ends `memd check` with status 1 once it has printed why.
var errCheckFailed = errors.New("a check failed")

func printCheckReport(w io.Writer, r memd.CheckReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	var checks []memd.Check
	if r.Store != nil {
		checks = append(checks, r.Store.Check)
	}
	if r.Runtime != nil {
		checks = append(checks, *r.Runtime)
	}
	for _, c := range checks {
		fmt.Fprintf(w, "%-4s  %-8s %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "      %-8s fix: %s\n", "", c.Fix)
		}
	}
	return nil
}

// storeVerdict opens the store while no daemon holds it, to see that it is
// readable and of a schema this memd knows, and lists its folders.
func storeVerdict(path string) memd.StoreReport {
	r := memd.StoreReport{Check: memd.Check{Name: checkStorePart}, Path: path}
	c := &r.Check
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = memd.CheckWarn, path+" does not exist yet", "memd creates it when it first starts; then `memctl add DIR`"
		return r
	}
	db, err := store.Open(path, store.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		c.Status, c.Detail = memd.CheckFail, err.Error()
		if errors.Is(err, store.ErrLocked) {
			c.Fix = "a memd that does not answer on this socket holds it: find it with `pgrep -a memd`, or pass the --socket it listens on"
		}
		return r
	}
	defer db.Close()
	err = db.View(func(tx *store.Tx) error {
		counts := tx.Counts()
		r.Notes, r.Chunks = counts.Notes, counts.Chunks
		folders, err := tx.Folders()
		for _, f := range folders {
			r.Folders = append(r.Folders, f.Path)
		}
		return err
	})
	if err != nil {
		c.Status, c.Detail = memd.CheckFail, fmt.Sprintf("%s opens but cannot be read: %v", path, err)
		c.Fix = "move it aside; memd re-indexes your folders into a new one (register them again with memctl add)"
		return r
	}
	r.Bytes = db.Size()
	c.Status, c.Detail = memd.CheckOK, fmt.Sprintf("%s: %d notes, %d chunks", path, r.Notes, r.Chunks)
	return r
}

// runtimeVerdict looks for the llama.cpp libraries that local models need,
// where memd loads them from: libDir (lib_dir, --lib-dir or
// MEMD_LLAMA_LIB), else the installed builds in the cache.
func runtimeVerdict(libDir string) memd.Check {
	c := memd.Check{Name: checkRuntimePart}
	dir, err := llamart.Find(llamart.Options{LibDir: libDir})
	if err != nil {
		c.Fix = "`memd runtime install`, or set MEMD_LLAMA_LIB to a folder holding libllama"
		if os.Getenv(llamart.EnvLibDir) != "" {
			c.Status, c.Detail = memd.CheckFail, err.Error()
			return c
		}
		c.Status = memd.CheckWarn
		c.Detail = "no llama.cpp runtime: models are off, so memd chunks with its heuristic and recalls with BM25 only"
		return c
	}
	c.Status, c.Detail = memd.CheckOK, "llama.cpp in "+dir
	if lib, err := llama.FindLibrary(dir); err == nil {
		c.Detail = fmt.Sprintf("llama.cpp %s (%s) in %s", lib.Version, lib.Backend, dir)
	}
	return c
}
