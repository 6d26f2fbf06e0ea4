package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/clitext"
)

func newRecallCmd(a *app) *cobra.Command {
	var (
		req           memd.RecallRequest
		after, before string
		vimgrep       bool
	)
	cmd := &cobra.Command{
		Use:         `recall "query"`,
		Short:       "Show the chunks of your notes that best answer a query",
		Args:        needQuery,
		Annotations: map[string]string{oneShot: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if vimgrep && a.json {
				return errors.New("--vimgrep and --json are two ways to print the hits; pick one")
			}
			req.Query = strings.Join(args, " ")
			f := &req.Filters
			var err error
			if f.Folder != "" {
				if f.Folder, err = clitext.AbsPath(f.Folder); err != nil {
					return err
				}
			}
			if f.PathPrefix != "" {
				if f.PathPrefix, err = clitext.AbsPrefix(f.PathPrefix); err != nil {
					return err
				}
			}
			if f.ModifiedAfter, err = parseDate("--after", after); err != nil {
				return err
			}
			if f.ModifiedBefore, err = parseDate("--before", before); err != nil {
				return err
			}
			if !a.json && !vimgrep {
				// The lines printHits shows, not whole chunks: a tenth of
				// the bytes for the daemon to encode and memctl to decode.
				shown := memd.DefaultExcerpt
				req.Excerpt = &shown
			}
			c, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := recall(cmd.Context(), c, req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			if res.CorrectedQuery != "" {
				fmt.Fprintf(a.errOut, "showing results for %q\n", res.CorrectedQuery)
			}
			if len(res.Hits) == 0 {
				fmt.Fprintf(a.errOut, "nothing in your notes matches %q\n", req.Query)
			}
			// One write, not one per line: ten hits were some forty
			// write system calls.
			out := bufio.NewWriter(a.out)
			if vimgrep {
				printVimgrep(out, res.Hits)
			} else {
				printHits(out, res.Hits)
			}
			if err := out.Flush(); err != nil {
				return fmt.Errorf("print hits: %w", err)
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(a.errOut, "warning:", w)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&req.K, "k", "k", 0, fmt.Sprintf("how many hits (default %d, at most %d)", memd.DefaultK, memd.MaxK))
	fl.StringVar(&req.Filters.Folder, "folder", "", "only notes of this registered folder")
	fl.StringVar(&req.Filters.PathPrefix, "path", "", "only notes whose path starts with this")
	fl.StringArrayVar(&req.Filters.Tags, "tag", nil, "only notes with this tag or a tag under it: garden matches garden/bees (repeat: every tag must be on the note)")
	fl.StringVar(&after, "after", "", "only notes modified after this date (2006-01-02 or RFC 3339)")
	fl.BoolVar(&req.Explain, "explain", false, "say which lists (bm25, vector, rerank) ranked each hit, at what rank and score")
	fl.StringVar(&before, "before", "", "only notes modified before this date (2006-01-02 or RFC 3339)")
	fl.BoolVar(&req.PerNote, "per-note", false, "one hit per note, its best chunk (-k then counts notes)")
	fl.Var(expandFlag{&req.Expand}, "expand", "expand the query from the notes it finds first (pseudo-relevance feedback); --expand=false turns off the daemon's recall.expand")
	fl.Lookup("expand").NoOptDefVal = "true"
	fl.BoolVar(&vimgrep, "vimgrep", false, "print path:line:col:text, one line a hit, as grep -n and Vim's quickfix and Emacs' grep-mode read it")
	return cmd
}

// parseDate reads a date given on the command line; a bare date is
// midnight in the local time zone.
func parseDate(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q is not a date; write it as 2026-01-31, 2026-01-31T14:30 or in RFC 3339", flag, s)
}

// recall asks c for req's hits. A daemon older than the excerpt refuses
// the field (it refuses every field it does not know): the whole text is
// asked for again and printHits cuts it.
func recall(ctx context.Context, c *api.Client, req memd.RecallRequest) (memd.RecallResult, error) {
	res, err := c.Recall(ctx, req)
	if req.Excerpt != nil && errors.Is(err, memd.ErrBadRequest) && strings.Contains(describe(err), `unknown field "excerpt"`) {
		req.Excerpt = nil
		return c.Recall(ctx, req)
	}
	return res, err
}

// printHits writes each hit as "path:start-end  heading > path  score" and
// an indented excerpt.
func printHits(w io.Writer, hits []memd.Hit) {
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine)
		if len(h.Heading) > 0 {
			head += "  " + strings.Join(h.Heading, " > ")
		}
		fmt.Fprintf(w, "%s  %.3f\n", head, h.Score)
		if len(h.Why) > 0 {
			fmt.Fprintln(w, "    why: "+explainLine(h.Why))
		}
		lines := h.Excerpt
		if lines == nil { // a daemon older than the excerpt sent the text
			lines = memd.DefaultExcerpt.Of(h.Text)
		}
		for _, line := range lines {
			fmt.Fprintln(w, "    "+line)
		}
	}
}

// printVimgrep writes each hit as "path:line:col:text": the hit's first
// line with text, so that a quickfix list opens on the chunk.
func printVimgrep(w io.Writer, hits []memd.Hit) {
	for _, h := range hits {
		line, text := h.StartLine, ""
		for i, l := range strings.Split(h.Text, "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				line, text = h.StartLine+i, l
				break
			}
		}
		fmt.Fprintf(w, "%s:%d:1:%s\n", h.Path, line, text)
	}
}

// explainLine is "bm25 #1 (7.21), vector #3 (0.812)".
func explainLine(why []memd.Reason) string {
	parts := make([]string, len(why))
	for i, r := range why {
		parts[i] = fmt.Sprintf("%s #%d (%.3g)", r.List, r.Rank, r.Score)
	}
	return strings.Join(parts, ", ")
}

// needQuery refuses a recall without a query, saying how to write one
// (cobra's own "requires at least 1 arg(s)" shows no example).
func needQuery(_ *cobra.Command, args []string) error {
	if strings.TrimSpace(strings.Join(args, " ")) == "" {
		return errors.New(`say what to recall: memctl recall "tomato watering" (memctl recall --help lists the filters)`)
	}
	return nil
}

// expandFlag is --expand: unset leaves the choice to the daemon's config.
type expandFlag struct{ v **bool }

func (f expandFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false", s)
	}
	*f.v = &b
	return nil
}

func (f expandFlag) String() string {
	if f.v == nil || *f.v == nil {
		return ""
	}
	return strconv.FormatBool(**f.v)
}

func (f expandFlag) Type() string { return "bool" }
