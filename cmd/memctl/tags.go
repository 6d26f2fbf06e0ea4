package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd"
)

func newTagsCmd(a *app) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "tags [PREFIX]",
		Short: "List the tags of your notes with how many notes carry each, most used first",
		Long: "List the tags of your notes with how many notes carry each, most used first.\n" +
			"A prefix narrows the list: `memctl tags garden` lists garden, garden/bees, … .",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := memd.TagsRequest{Limit: limit}
			if len(args) == 1 {
				req.Prefix = strings.TrimPrefix(args[0], "#")
			}
			ctx := cmd.Context()
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.Tags(ctx, req)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(res)
			}
			printTags(a.out, res)
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", memd.DefaultLimit, fmt.Sprintf("how many tags to list (at most %d)", memd.MaxLimit))
	return cmd
}

func printTags(w io.Writer, res memd.TagsResult) {
	if len(res.Tags) == 0 {
		fmt.Fprintln(w, "no tags")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range res.Tags {
		fmt.Fprintf(tw, "#%s\t%s\n", t.Tag, plural(t.Notes, "note"))
	}
	tw.Flush()
	if more := res.Total - len(res.Tags); more > 0 {
		fmt.Fprintf(w, "… and %d more (memctl tags -n %d)\n", more, min(res.Total, memd.MaxLimit))
	}
}

// plural is n with its noun, in the plural unless n is one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
