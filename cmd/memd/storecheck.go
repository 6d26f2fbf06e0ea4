package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/store"
)

// Start-up checks of the store. The header check and contained faults run
// on every open (store.Open); bbolt's full consistency check reads every
// page, about 4 s per GB warm on 2 cores, so it runs at start only for stores up
// to --store-check-max-bytes, in a child process, because a page it cannot
// follow crashes the process that runs it.
const (
	fullCheckTimeout = time.Minute
	// maxRebuilds bounds how often one memd process moves a damaged store
	// aside; a store that is damaged again at once points at the disk.
	maxRebuilds = 3
)

// addStoreCmd adds `memd store check`: the verdict memctl doctor shows.
func addStoreCmd(root *cobra.Command) {
	var asJSON bool
	st := &cobra.Command{Use: "store", Short: "Check memd's store file"}
	check := &cobra.Command{
		Use:   "check",
		Short: "Check the store file for damage without changing it",
		Long: `Check the store file: the meta pages against the file's size, bbolt's
consistency check over every page, and a read of the counters and folders.
It changes nothing and exits 1 when the store is damaged; memd moves a
damaged store aside at start and rebuilds it from the registered folders.
A store held by a running memd cannot be checked (ask it: memctl doctor).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Flags())
			if err != nil {
				return err
			}
			v := store.Check(filepath.Join(cfg.Data, "memd.db"))
			if asJSON {
				if err := json.NewEncoder(cmd.OutOrStdout()).Encode(v); err != nil {
					return err
				}
			} else {
				printVerdict(cmd, v)
			}
			if !v.OK {
				return errDamagedVerdict
			}
			return nil
		},
	}
	config.RegisterFlags(check.Flags(), "data")
	check.Flags().BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	st.AddCommand(check)
	root.AddCommand(st)
}

// errDamagedVerdict makes `memd store check` exit 1 after printing why.
var errDamagedVerdict = errors.New("the store did not pass the check")

func printVerdict(cmd *cobra.Command, v store.Verdict) {
	out := cmd.OutOrStdout()
	switch {
	case v.OK && v.Bytes == 0:
		fmt.Fprintf(out, "ok: %s does not exist yet\n", v.Path)
	case v.OK:
		fmt.Fprintf(out, "ok: %s: %d notes, %d chunks, %d bytes, %d folders (checked in %v)\n",
			v.Path, v.Notes, v.Chunks, v.Bytes, len(v.Folders), v.Took.Round(time.Millisecond))
	case v.Reason == "":
		fmt.Fprintf(out, "not checked: %s\n", v.Problem)
	default:
		fmt.Fprintf(out, "damaged: %s\nmemd moves it aside at start and re-indexes these folders: %s\n",
			v.Problem, strings.Join(v.Folders, ", "))
	}
}

// checkInChild runs `memd store check --json` on the data folder and
// returns its verdict; a check that crashed on the file is a damaged
// verdict. An error means the check could not be run.
func checkInChild(ctx context.Context, data string) (store.Verdict, error) {
	path := filepath.Join(data, "memd.db")
	self, err := os.Executable()
	if err != nil {
		return store.Verdict{}, fmt.Errorf("find memd's own binary: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, fullCheckTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, self, "store", "check", "--json", "--data", data)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return store.Verdict{}, fmt.Errorf("the store check took over %v", fullCheckTimeout)
	}
	var v store.Verdict
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		v = store.Damaged(path, "bbolt's consistency check crashed on it: "+lastLine(stderr.String(), runErr))
		v.Folders, _ = registeredPaths(path)
	}
	return v, nil
}

// registeredPaths lists the folders kept beside the store at path.
func registeredPaths(path string) ([]string, error) {
	fs, err := store.ReadRegistrations(path)
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out, err
}

// lastLine is the first line of a crash report (the panic or fault), or
// the exit status when there is none.
func lastLine(stderr string, err error) string {
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return fmt.Sprint(err)
}

// openStore opens the store in the data folder, checking it first in a
// child process when it is small enough; a damaged store is returned as a
// DamageError for serveRebuilding to move aside.
func openStore(ctx context.Context, data string, fullCheckMaxBytes int64, log *slog.Logger) (*store.DB, error) {
	path := filepath.Join(data, "memd.db")
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && fi.Size() <= fullCheckMaxBytes {
		start := time.Now()
		v, err := checkInChild(ctx, data)
		if err == nil {
			if derr := v.Damage(); derr != nil {
				return nil, derr
			}
		}
		if err != nil {
			log.Warn("the store's consistency check did not run; reads are still guarded", "err", err)
		} else {
			log.Debug("store checked", "bytes", fi.Size(), "took", time.Since(start))
		}
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, err
	}
	if u := db.Upgraded(); u != nil {
		if u.CompactErr != nil {
			log.Warn("upgraded the store's index; compacting the file failed, so it keeps its old size until `memctl compact` succeeds",
				"from_schema", u.From, "err", u.CompactErr)
		} else {
			log.Info("upgraded the store's index and compacted the file", "from_schema", u.From, "bytes_before", u.Before, "bytes_after", u.After)
		}
	}
	restored, rerr := db.Restored()
	if rerr != nil {
		log.Warn("the registered folders kept beside the store could not be read; register your folders again with memctl add", "err", rerr)
	}
	if len(restored) > 0 {
		var paths []string
		for _, f := range restored {
			paths = append(paths, f.Path)
		}
		log.Info("new store: re-indexing the registered folders", "folders", strings.Join(paths, ", "))
	}
	return db, nil
}

// serveRebuilding runs serve, and when it ends on a damaged store, moves
// the store aside and serves again on a new one, which takes the folders
// from the registrations file and indexes them anew.
func serveRebuilding(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	var sock daemonSocket // one socket for every serve: see daemonSocket
	defer sock.Close()
	for rebuilds := 0; ; rebuilds++ {
		err := serve(ctx, cfg, &sock, log)
		var damage *store.DamageError
		if !errors.As(err, &damage) || ctx.Err() != nil {
			return err
		}
		if rebuilds == maxRebuilds {
			return fmt.Errorf("%w; the store was rebuilt %d times and is damaged again: check the disk (dmesg, smartctl) before starting memd again", err, maxRebuilds)
		}
		aside, merr := store.MoveAside(damage.Path)
		if merr != nil {
			return fmt.Errorf("%w; %w", err, merr)
		}
		log.Error("the store is damaged: moved it aside, rebuilding it from your folders",
			"reason", damage.Reason, "moved_to", aside)
	}
}
