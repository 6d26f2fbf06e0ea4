package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memd-dev/memd/inference/adapter"
)

func newModelImportAdapterCmd(a *app) *cobra.Command {
	var base, out, name string
	cmd := &cobra.Command{
		Use:   "import-adapter DIR --base BASE.gguf",
		Short: "Convert a LoRA adapter saved by PEFT or mlx-lm into a GGUF LoRA for memd",
		Long: `import-adapter reads a LoRA adapter as PEFT (adapter_model.safetensors) or
mlx-lm (adapters.safetensors) saved it, with its adapter_config.json, checks
it against the GGUF base model it was trained on, and writes a GGUF LoRA
that llama.cpp loads. With --name it is also set as adapter:NAME (for
example memory-chunk), for memd's next start.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if base == "" {
				return fmt.Errorf("--base is needed: the GGUF model the adapter was trained on (the generator memd runs it with)")
			}
			if out == "" {
				out = strings.TrimSuffix(filepath.Clean(args[0]), string(filepath.Separator)) + ".gguf"
			}
			res, err := adapter.Convert(args[0], base, out)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s adapter, %d matrices, rank %d, alpha %g, for %s\n",
				abs, res.Format, res.Tensors, res.Rank, res.Alpha, res.Architecture)
			if name == "" {
				return nil
			}
			return a.editRole(cmd, adapterPrefix+name, abs)
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "the GGUF base model the adapter was trained on")
	cmd.Flags().StringVarP(&out, "out", "o", "", "GGUF file to write (default DIR.gguf)")
	cmd.Flags().StringVar(&name, "name", "", "also set it as adapter:NAME (e.g. memory-chunk)")
	return cmd
}
