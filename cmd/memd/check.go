package main

import (
	"context"
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
				st := storeVerdict(cmd.Context(), cfg.Data)
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

// storeVerdict is `memd store check`'s verdict on the store, run in a
// child process: bbolt's consistency check crashes the process that runs
// it on a page it cannot follow, and that must read as a damaged store,
// not a crashed check.
func storeVerdict(ctx context.Context, data string) memd.StoreReport {
	path := filepath.Join(data, "memd.db")
	r := memd.StoreReport{Check: memd.Check{Name: checkStorePart}, Path: path}
	c := &r.Check
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = memd.CheckWarn, path+" does not exist yet", "memd creates it when it first starts; then `memctl add DIR`"
		r.Folders, _ = registeredPaths(path)
		return r
	}
	v, err := checkInChild(ctx, data)
	if err != nil {
		c.Status, c.Detail = memd.CheckWarn, "not checked: "+err.Error()
		return r
	}
	r.Notes, r.Chunks, r.Bytes, r.Folders = v.Notes, v.Chunks, v.Bytes, v.Folders
	switch {
	case v.OK:
		c.Status = memd.CheckOK
		c.Detail = fmt.Sprintf("%s: %d notes, %d chunks, consistent (checked in %v)", path, r.Notes, r.Chunks, v.Took.Round(time.Millisecond))
	case v.Locked:
		c.Status, c.Detail = memd.CheckFail, v.Problem
		c.Fix = "a memd that does not answer on this socket holds it: find it with `pgrep -a memd`, or pass the --socket it listens on"
	case v.Reason == "":
		c.Status, c.Detail = memd.CheckFail, v.Problem
		c.Fix = "the store could not be opened to check it, and is not known to be damaged: fix what the message says (permissions, disk) and run the check again"
	default:
		c.Status, c.Detail = memd.CheckFail, v.Problem
		c.Fix = "start memd: it moves the damaged store aside and re-indexes the registered folders from the file beside it"
	}
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
