package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	llamart "github.com/memd-dev/memd/inference/runtime"
)

// addRuntimeCmd adds `memd runtime install` and `memd runtime path`: the
// llama.cpp libraries that local models need, fetched into the cache.
func addRuntimeCmd(root *cobra.Command) {
	var o llamart.InstallOptions
	rt := &cobra.Command{
		Use:   "runtime",
		Short: "Install or locate the llama.cpp libraries local models need",
	}
	rt.PersistentFlags().StringVar(&o.Backend, "backend", "", "llama.cpp build: auto, "+strings.Join(llamart.Backends, ", ")+" (default auto)")
	rt.PersistentFlags().StringVar(&o.CacheDir, "cache-dir", "", "where installed builds live (default ~/.cache/memd/llama)")
	install := &cobra.Command{
		Use:   "install",
		Short: "Fetch the pinned llama.cpp build for this machine with npm pack",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Output = cmd.ErrOrStderr()
			dir, err := llamart.Install(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "installed llama.cpp in %s\n", dir)
			return nil
		},
	}
	install.Flags().StringVar(&o.NPM, "npm", "", "the npm client to run (default npm on PATH)")
	path := &cobra.Command{
		Use:   "path",
		Short: "Print the folder memd loads llama.cpp from, or say why there is none",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := llamart.Find(o.Options)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	rt.AddCommand(install, path)
	root.AddCommand(rt)
}
