package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jedib0t/go-pretty/v6/progress"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/memd-dev/memd/inference/hub"
	"github.com/memd-dev/memd/internal/config"
)

// newModelCmd holds `memd model pull`, which `memctl model pull` runs: the
// hub client and the progress bar stay out of memctl's binary, whose every
// start would pay their package init.
func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "model",
		Short:  "Download models (memctl model pull runs it)",
		Hidden: true,
	}
	cmd.AddCommand(newModelPullCmd())
	return cmd
}

func newModelPullCmd() *cobra.Command {
	var (
		rev    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "pull REPO FILE",
		Short: "Download a GGUF file from the Hugging Face hub into the models folder",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd.Flags())
			if err != nil {
				return err
			}
			errOut := cmd.ErrOrStderr()
			bar := newDownloadBar(args[1], !asJSON && isTerminal(errOut), errOut)
			path, err := hub.FromEnv().Pull(cmd.Context(), args[0], args[1], cfg.ModelsFolder(), rev, bar.update)
			bar.finish()
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]string{"path": path})
			}
			fmt.Fprintln(cmd.OutOrStdout(), path)
			fmt.Fprintf(errOut, "to use it: memctl model set %s %s\n", guessRole(args[1]), shellQuote(path))
			return nil
		},
	}
	config.RegisterFlags(cmd.Flags(), "models")
	cmd.Flags().StringVar(&rev, "revision", "", "branch, tag or commit of the repository (default main)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the path as JSON")
	return cmd
}

// downloadBar draws pull's progress on a terminal, nothing elsewhere.
type downloadBar struct {
	w        io.Writer // nil: draw nothing
	name     string
	writer   progress.Writer
	tracker  *progress.Tracker
	rendered chan struct{}
}

func newDownloadBar(name string, draw bool, w io.Writer) *downloadBar {
	b := &downloadBar{name: name}
	if draw {
		b.w = w
	}
	return b
}

func (b *downloadBar) update(done, total int64) {
	if b.w == nil {
		return
	}
	if b.tracker == nil {
		b.writer = progress.NewWriter()
		b.writer.SetOutputWriter(b.w)
		b.writer.SetUpdateFrequency(100 * time.Millisecond)
		b.writer.SetTrackerLength(30)
		b.writer.SetTrackerPosition(progress.PositionRight)
		b.writer.Style().Visibility.Speed = true
		b.writer.Style().Options.Separator = " "
		b.writer.Style().Options.TimeInProgressPrecision = time.Second
		b.tracker = &progress.Tracker{Message: b.name, Total: total, Units: progress.UnitsBytes, RemoveOnCompletion: true}
		b.writer.AppendTracker(b.tracker)
		b.rendered = make(chan struct{})
		go func() {
			defer close(b.rendered)
			b.writer.Render()
		}()
	}
	b.tracker.SetValue(done)
}

// finish takes the bar off the screen and returns when it is gone.
func (b *downloadBar) finish() {
	if b.tracker != nil {
		b.tracker.MarkAsDone()
		b.writer.Stop()
		<-b.rendered
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// adapterPrefix marks a LoRA adapter as a role: adapter:memory-chunk.
const adapterPrefix = "adapter:"

// guessRole is the role a downloaded file most likely fills, for the hint.
func guessRole(file string) string {
	f := strings.ToLower(file)
	switch {
	case strings.Contains(f, "embed"):
		return "embedder"
	case strings.Contains(f, "rerank"):
		return "reranker"
	case strings.Contains(f, "lora") || strings.Contains(f, "adapter"):
		return adapterPrefix + "memory-chunk"
	}
	return "generator"
}

func shellQuote(s string) string {
	if !strings.ContainsAny(s, " '\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
