package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memd-dev/memd/internal/config"
	"github.com/spf13/pflag"
)

// A command registers the flags when it is built, then loads the file, the
// environment and the flags, in that order of precedence (lowest first).
func Example() {
	dir, _ := os.MkdirTemp("", "memd")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("threads = 2\nslots = 4\n\n[adapters]\nmemory-chunk = '/models/chunk.gguf'\n"), 0o600)

	fs := pflag.NewFlagSet("memd", pflag.ContinueOnError)
	config.RegisterFlags(fs)
	fs.Parse([]string{"--threads=8", "--generator=/models/gemma.gguf"})
	env := map[string]string{"MEMD_THREADS": "4", "MEMD_SLOTS": "6"}

	cfg, err := config.Load(path, func(k string) string { return env[k] })
	if err == nil {
		err = config.ApplyFlags(fs, &cfg)
	}
	fmt.Println(err, cfg.Threads, cfg.Slots, cfg.Generator, cfg.Adapters["memory-chunk"])
	// Output: <nil> 8 6 /models/gemma.gguf /models/chunk.gguf
}

// Save edits the file in place, keeping the user's comments.
func ExampleSave() {
	dir, _ := os.MkdirTemp("", "memd")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("# my models\ngenerator = '/models/old.gguf' # 1b\n\n[recall]\nrrf_k = 30\n"), 0o600)

	cfg, _ := config.Load(path, nil) // the file alone: no environment
	cfg.Generator = "/models/new.gguf"
	cfg.Embedder = "/models/embed.gguf"
	cfg.Recall.RRFK = 0
	if err := config.Save(path, cfg); err != nil {
		fmt.Println(err)
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// # my models
	// generator = '/models/new.gguf' # 1b
	// embedder = '/models/embed.gguf'
	//
	// [recall]
}
