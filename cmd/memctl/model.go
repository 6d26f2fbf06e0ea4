package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/inference/modelfind"
	"github.com/memd-dev/memd/internal/autostart"
	"github.com/memd-dev/memd/internal/clitext"
	"github.com/memd-dev/memd/internal/config"
)

// modelRoles are the roles `memctl model set` takes besides adapter:NAME.
var modelRoles = []string{"generator", "embedder", "reranker"}

// adapterPrefix marks a LoRA adapter as a role: adapter:memory-chunk.
const adapterPrefix = "adapter:"

func newModelCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "List, set, unset and download the models memd uses",
		Long: `memd has three model roles: the generator (chunking, summaries, chat), the
embedder (vector recall) and the reranker, plus LoRA adapters by name
(adapter:memory-chunk). set and unset edit the config file; memd reads it
at start, so restart memd afterwards.`,
	}
	cmd.AddCommand(newModelListCmd(a), newModelSetCmd(a), newModelUnsetCmd(a), newModelPullCmd(a), newModelImportAdapterCmd(a))
	return cmd
}

// modelConfig is the config file named by --config or MEMD_CONFIG, read
// alone: what set and unset change and write back.
func modelConfig(cmd *cobra.Command) (string, config.Config, error) {
	path := config.FilePath(cmd.Flags(), os.Getenv)
	cfg, err := config.Load(path, nil)
	return path, cfg, err
}

// modelListJSON is what model list --json prints.
type modelListJSON struct {
	Running bool               `json:"running"`
	Roles   []memd.ModelStatus `json:"roles"`
	Files   []modelFile        `json:"files"`
	Config  string             `json:"config"`
}

type modelFile struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

func newModelListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Show each role's model as memd loaded it, and the models folder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, cfg, err := modelConfig(cmd)
			if err != nil {
				return err
			}
			out := modelListJSON{Config: path, Roles: []memd.ModelStatus{}, Files: []modelFile{}}
			// A running daemon says what it loaded; listing does not start one.
			if autostart.Answers(a.socket) {
				c := api.NewClient(a.socket)
				defer c.Close()
				st, err := c.Status(cmd.Context())
				if err != nil {
					return err
				}
				out.Running, out.Roles = true, st.Models
			} else {
				out.Roles = configuredRoles(cfg)
			}
			if out.Files, err = listModelFiles(a.cfg.ModelsFolder()); err != nil {
				return err
			}
			if a.json {
				return a.printJSON(out)
			}
			printModels(a.out, out, a.cfg.ModelsFolder())
			return nil
		},
	}
}

// configuredRoles is the roles as the config file sets them, for when no
// daemon runs to say what it loaded.
func configuredRoles(cfg config.Config) []memd.ModelStatus {
	var out []memd.ModelStatus
	for _, r := range []struct{ role, path string }{{"generator", cfg.Generator}, {"embedder", cfg.Embedder}, {"reranker", cfg.Reranker}} {
		st := memd.ModelStatus{Role: r.role, Path: r.path, Reason: "memd is not running"}
		if r.path == "" {
			st.Reason = "no model configured"
		}
		out = append(out, st)
	}
	for _, n := range slices.Sorted(maps.Keys(cfg.Adapters)) {
		out = append(out, memd.ModelStatus{Role: adapterPrefix + n, Path: cfg.Adapters[n], Reason: "memd is not running"})
	}
	return out
}

// listModelFiles finds the GGUF files under dir; a missing dir has none.
func listModelFiles(dir string) ([]modelFile, error) {
	out := []modelFile{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(strings.ToLower(p), ".gguf") {
			info, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, modelFile{Path: p, Bytes: info.Size()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list models in %s: %w", dir, err)
	}
	return out, nil
}

func printModels(w io.Writer, l modelListJSON, dir string) {
	if !l.Running {
		fmt.Fprintf(w, "memd is not running; roles as %s sets them:\n", l.Config)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tFILE\tFINGERPRINT\tBACKEND\tMEMORY\tSTATE")
	for _, m := range l.Roles {
		state := "loaded"
		if !m.Loaded {
			state = "off: " + m.Reason
		}
		file, mem := m.Path, ""
		if file == "" {
			file = "-"
		}
		if m.Bytes > 0 {
			mem = clitext.Bytes(m.Bytes)
		}
		fp := m.Fingerprint
		if len(fp) > 16 {
			fp = fp[:16]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Role, file, dash(fp), dash(clitext.Backend(m)), dash(mem), state)
	}
	tw.Flush()
	if len(l.Files) == 0 {
		fmt.Fprintf(w, "no models in %s yet: memctl model pull REPO FILE\n", dir)
		return
	}
	fmt.Fprintf(w, "models in %s:\n", dir)
	for _, f := range l.Files {
		fmt.Fprintf(w, "  %s  %s\n", f.Path, clitext.Bytes(f.Bytes))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// roleField is the config field role names, or the adapter name.
func roleField(cfg *config.Config, role string) (*string, string, error) {
	switch role {
	case "generator":
		return &cfg.Generator, "", nil
	case "embedder":
		return &cfg.Embedder, "", nil
	case "reranker":
		return &cfg.Reranker, "", nil
	}
	if name, ok := strings.CutPrefix(role, adapterPrefix); ok && name != "" {
		return nil, name, nil
	}
	return nil, "", fmt.Errorf("%w: unknown role %q: use %s or %sNAME (e.g. %smemory-chunk)",
		errUsage, role, strings.Join(modelRoles, ", "), adapterPrefix, adapterPrefix)
}

var errUsage = errors.New("usage")

func newModelSetCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "set ROLE PATH|NAME",
		Short: "Use a GGUF file for a role (generator, embedder, reranker, adapter:NAME)",
		Long: `set uses the GGUF file at PATH for a role, or a model another tool already
downloaded, by the name you know it by, where it lies (no copy): an Ollama
model (gemma3:1b) or a Hugging Face repository in its cache
(unsloth/gemma-3-1b-it-GGUF, with /FILE.gguf or :QUANT when it holds several).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := modelPath(cmd, args[1])
			if err != nil {
				return err
			}
			if _, err := gguf.Check(path); err != nil {
				return err
			}
			return a.editRole(cmd, args[0], path)
		},
	}
}

// modelPath is the file arg names: a path when one exists there, else a
// model in Ollama's store or the Hugging Face cache.
func modelPath(cmd *cobra.Command, arg string) (string, error) {
	if _, err := os.Stat(arg); err == nil {
		return filepath.Abs(arg)
	}
	found, err := modelfind.Resolve(arg)
	if errors.Is(err, modelfind.ErrNotFound) {
		return "", fmt.Errorf("%s is neither a file nor a model memd can find: %w", arg, err)
	}
	if err != nil {
		return "", err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s from %s's store\n", arg, found.Path, found.Source)
	return found.Path, nil
}

func newModelUnsetCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "unset ROLE",
		Short: "Stop using a model for a role; its stages fall back",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return a.editRole(cmd, args[0], "") },
	}
}

// editRole writes path ("" to remove) for role into the config file and
// says how it takes effect.
func (a *app) editRole(cmd *cobra.Command, role, path string) error {
	file, cfg, err := modelConfig(cmd)
	if err != nil {
		return err
	}
	field, adapter, err := roleField(&cfg, role)
	if err != nil {
		return err
	}
	if field != nil {
		*field = path
	} else {
		cfg.Adapters = maps.Clone(cfg.Adapters)
		if cfg.Adapters == nil {
			cfg.Adapters = map[string]string{}
		}
		if path == "" {
			delete(cfg.Adapters, adapter)
		} else {
			cfg.Adapters[adapter] = path
		}
	}
	if err := config.Save(file, cfg); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]string{"role": role, "path": path, "config": file})
	}
	if path == "" {
		fmt.Fprintf(a.out, "%s: no model (in %s)\n", role, file)
	} else {
		fmt.Fprintf(a.out, "%s: %s (in %s)\n", role, path, file)
	}
	a.restartHint(cmd.Context())
	return nil
}

// restartHint tells how the change takes effect. memctl does not restart a
// running memd itself: it may be run by a service manager or in a terminal
// that would lose it.
func (a *app) restartHint(ctx context.Context) {
	if !autostart.Answers(a.socket) {
		fmt.Fprintln(a.errOut, "memd reads it when it starts")
		return
	}
	c := api.NewClient(a.socket)
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		fmt.Fprintln(a.errOut, "restart memd to load it")
		return
	}
	fmt.Fprintf(a.errOut, "memd (pid %d) is running with the old setting: restart it to load the change (kill %d; the next memctl command starts it again)\n", st.PID, st.PID)
}

func newModelPullCmd(a *app) *cobra.Command {
	var rev string
	cmd := &cobra.Command{
		Use:   "pull REPO FILE",
		Short: "Download a GGUF file from the Hugging Face hub into the models folder",
		Long: `pull downloads FILE of the hub repository REPO (e.g. unsloth/gemma-3-1b-it-GGUF
gemma-3-1b-it-Q4_K_M.gguf) into the models folder. It resumes a broken
download, checks the hub's sha256, honours HF_TOKEN and HF_ENDPOINT, and
prints the memctl model set line that puts the file to use. memctl runs
the download from the memd binary (memd model pull).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			pull := []string{"model", "pull", "--models", a.cfg.ModelsFolder()}
			if rev != "" {
				pull = append(pull, "--revision", rev)
			}
			if a.json {
				pull = append(pull, "--json")
			}
			return a.execMemd(cmd, append(pull, "--", args[0], args[1])...)
		},
	}
	cmd.Flags().StringVar(&rev, "revision", "", "branch, tag or commit of the repository (default main)")
	return cmd
}
