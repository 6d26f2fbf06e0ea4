package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// load runs what a command does: Load, then the flags.
func load(t *testing.T, path string, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("memd", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	c, err := Load(path, envOf(env))
	if err != nil {
		return Config{}, err
	}
	return c, ApplyFlags(fs, &c)
}

const sample = `# my memd
generator = "/models/gemma.gguf"
threads = 2
max_file_bytes = "8MiB"

[adapters]
memory-chunk = "/models/chunk.gguf"
other = "/models/other.gguf"

[recall]
rrf_k = 30
bm25_weight = 0.5

[tcp]
listen = "127.0.0.1:7077"
`

func TestPrecedence(t *testing.T) {
	path := writeConfig(t, sample)
	cases := []struct {
		name  string
		path  string
		env   map[string]string
		args  []string
		check func(Config) string
	}{
		{"default", "", nil, nil, func(c Config) string {
			if !reflect.DeepEqual(c, Config{}) {
				return "want the zero Config"
			}
			return ""
		}},
		{"file", path, nil, nil, func(c Config) string {
			want := Config{
				Generator: "/models/gemma.gguf", Threads: 2, MaxFileBytes: 8 << 20,
				Adapters: map[string]string{"memory-chunk": "/models/chunk.gguf", "other": "/models/other.gguf"},
				Recall:   Recall{RRFK: 30, BM25Weight: 0.5},
				TCP:      TCP{Listen: "127.0.0.1:7077"},
			}
			if !reflect.DeepEqual(c, want) {
				return "want the file's values"
			}
			return ""
		}},
		{"env over file", path, map[string]string{"MEMD_THREADS": "4", "MEMD_GENERATOR": "/env/g.gguf", "MEMD_RECALL_RRF_K": "45", "MEMD_MAX_FILE_BYTES": "1000"}, nil, func(c Config) string {
			if c.Threads != 4 || c.Generator != "/env/g.gguf" || c.Recall.RRFK != 45 || c.MaxFileBytes != 1000 || c.Recall.BM25Weight != 0.5 {
				return "want env's threads, generator, rrf_k, max_file_bytes; file's bm25_weight"
			}
			return ""
		}},
		{"flag over env", path, map[string]string{"MEMD_THREADS": "4", "MEMD_GENERATOR": "/env/g.gguf"}, []string{"--threads=8", "--recall-bm25-weight", "0.25"}, func(c Config) string {
			if c.Threads != 8 || c.Generator != "/env/g.gguf" || c.Recall.BM25Weight != 0.25 {
				return "want flag's threads and bm25_weight, env's generator"
			}
			return ""
		}},
		{"flag without file or env", "", nil, []string{"--generator", "/f/g.gguf", "--gpu-layers=-1", "--log-level=DEBUG"}, func(c Config) string {
			if c.Generator != "/f/g.gguf" || c.GPULayers != -1 || c.LogLevel != "debug" {
				return "want the flags' values"
			}
			return ""
		}},
		{"a boolean from file, env and flag", writeConfig(t, "[recall]\nexpand = true\n"), nil, nil, func(c Config) string {
			if !c.Recall.Expand {
				return "want the file's recall.expand"
			}
			return ""
		}},
		{"a boolean flag alone turns it on", "", map[string]string{"MEMD_RECALL_EXPAND": "false"}, []string{"--recall-expand"}, func(c Config) string {
			if !c.Recall.Expand {
				return "--recall-expand must turn it on over the env's false"
			}
			return ""
		}},
		{"a boolean flag turns it off", "", map[string]string{"MEMD_RECALL_EXPAND": "true"}, []string{"--recall-expand=false"}, func(c Config) string {
			if c.Recall.Expand {
				return "--recall-expand=false must turn it off over the env's true"
			}
			return ""
		}},
		{"explicit zero wins", path, map[string]string{"MEMD_THREADS": "4"}, []string{"--threads=0"}, func(c Config) string {
			if c.Threads != 0 {
				return "--threads=0 must override env and file"
			}
			return ""
		}},
		{"adapters merge by name", path, map[string]string{"MEMD_ADAPTERS": "memory-chunk=/env/chunk.gguf,extra=/env/extra.gguf"}, []string{"--adapter", "extra=/flag/extra.gguf", "--adapter=other="}, func(c Config) string {
			want := map[string]string{"memory-chunk": "/env/chunk.gguf", "extra": "/flag/extra.gguf"}
			if !reflect.DeepEqual(c.Adapters, want) {
				return "want env's memory-chunk, flag's extra, other removed"
			}
			return ""
		}},
		{"empty env is unset", path, map[string]string{"MEMD_THREADS": ""}, nil, func(c Config) string {
			if c.Threads != 2 {
				return "an empty variable must not override the file"
			}
			return ""
		}},
		{"missing file reads as empty", filepath.Join(t.TempDir(), "none.toml"), map[string]string{"MEMD_SLOTS": "3"}, nil, func(c Config) string {
			if c.Slots != 3 {
				return "want env's slots"
			}
			return ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc.path, tc.env, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(c); msg != "" {
				t.Errorf("%s; got %+v", msg, c)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		args []string
		says []string
	}{
		{name: "unknown key", file: "threads = 2\n\nthread = 4\n",
			says: []string{"config.toml:3", `unknown key "thread"`, `did you mean "threads"`}},
		{name: "unknown key in a table", file: "[recall]\nrrf_k = 1\nrrf = 2\n",
			says: []string{"config.toml:3", `unknown key "recall.rrf"`, `did you mean "recall.rrf_k"`}},
		{name: "flag spelling in the file", file: "\nlib-dir = '/x'\n",
			says: []string{"config.toml:2", `did you mean "lib_dir"`}},
		{name: "far from any key", file: "zzzzzzzzzz = 1\n",
			says: []string{"config.toml:1", "the keys are data, socket"}},
		{name: "string for an integer", file: "# c\nthreads = \"four\"\n",
			says: []string{"config.toml:2", "threads: expected an integer, got a string (\"four\")"}},
		{name: "integer for a path", file: "generator = 3\n",
			says: []string{"config.toml:1", "generator: expected a path (a string), got an integer (3)"}},
		{name: "float for an integer", file: "[recall]\nrrf_k = 1.5\n",
			says: []string{"config.toml:2", "recall.rrf_k: expected an integer, got a float (1.5)"}},
		{name: "boolean for a number", file: "[recall]\n\nvector_weight = true\n",
			says: []string{"config.toml:3", "recall.vector_weight: expected a number, got a boolean"}},
		{name: "number for a boolean", file: "[recall]\nexpand = 1\n",
			says: []string{"config.toml:2", "recall.expand: expected true or false, got an integer (1)"}},
		{name: "bad env boolean", env: map[string]string{"MEMD_RECALL_EXPAND": "sometimes"},
			says: []string{"MEMD_RECALL_EXPAND", "recall.expand: expected true or false"}},
		{name: "negative slots", file: "slots = -2\n",
			says: []string{"config.toml:1", "slots: must be at least 0, got -2"}},
		{name: "bad byte count", file: "max_file_bytes = \"lots\"\n",
			says: []string{"config.toml:1", "max_file_bytes: expected a byte count"}},
		{name: "bad log level", file: "log_level = \"loud\"\n",
			says: []string{"log_level: expected one of \"debug\", \"info\", \"warn\", \"error\", got \"loud\""}},
		{name: "not loopback", file: "[tcp]\nlisten = \"0.0.0.0:7077\"\n",
			says: []string{"config.toml:2", "tcp.listen", "is not a loopback address"}},
		{name: "table expected", file: "recall = 5\n",
			says: []string{"config.toml:1", "recall: expected a table ([recall]), got an integer"}},
		{name: "adapter path not a string", file: "[adapters]\nmemory-chunk = 1\n",
			says: []string{"adapters.memory-chunk: expected a path (a string), got an integer"}},
		{name: "syntax error", file: "threads = 2\ngenerator = \"unclosed\n",
			says: []string{"config.toml:2", "fix the TOML syntax"}},
		{name: "bad env", env: map[string]string{"MEMD_THREADS": "many"},
			says: []string{`environment MEMD_THREADS="many"`, "threads: expected an integer"}},
		{name: "bad env adapters", env: map[string]string{"MEMD_ADAPTERS": "memory-chunk"},
			says: []string{"MEMD_ADAPTERS", "expected name=path"}},
		{name: "bad flag", args: []string{"--slots=lots"},
			says: []string{"--slots", "slots: expected an integer"}},
		{name: "bad flag address", args: []string{"--tcp-listen=example.com:80"},
			says: []string{"not a loopback address"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.file != "" {
				path = writeConfig(t, tc.file)
			}
			_, err := load(t, path, tc.env, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

func TestPathsResolve(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := writeConfig(t, "generator = 'models/g.gguf'\nembedder = '~/e.gguf'\n[adapters]\nmemory-chunk = '../c.gguf'\n")
	dir := filepath.Dir(path)
	t.Chdir(t.TempDir())
	wd, _ := os.Getwd()
	c, err := load(t, path, map[string]string{"MEMD_RERANKER": "r.gguf"}, "--data=~/d")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"generator": filepath.Join(dir, "models", "g.gguf"),
		"embedder":  filepath.Join(home, "e.gguf"),
		"adapter":   filepath.Join(filepath.Dir(dir), "c.gguf"),
		"reranker":  filepath.Join(wd, "r.gguf"),
		"data":      filepath.Join(home, "d"),
	}
	got := map[string]string{"generator": c.Generator, "embedder": c.Embedder, "adapter": c.Adapters["memory-chunk"], "reranker": c.Reranker, "data": c.Data}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths %v, want %v", got, want)
	}
}

func TestFolders(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"} {
		t.Setenv(v, "")
	}
	defaults := map[string]string{
		"data": DataDir(), "config": ConfigDir(), "cache": CacheDir(), "state": StateDir(),
		"socket": RuntimeSocketPath(), "file": DefaultPath(),
	}
	want := map[string]string{
		"data": "/home/u/.local/share/memd", "config": "/home/u/.config/memd", "cache": "/home/u/.cache/memd",
		"state": "/home/u/.local/state/memd", "socket": "/home/u/.local/state/memd/memd.sock",
		"file": "/home/u/.config/memd/config.toml",
	}
	if !reflect.DeepEqual(defaults, want) {
		t.Errorf("defaults %v\nwant %v", defaults, want)
	}
	t.Setenv("XDG_DATA_HOME", "/x/data")
	t.Setenv("XDG_CONFIG_HOME", "relative") // ignored, as the spec says
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if DataDir() != "/x/data/memd" || ConfigDir() != "/home/u/.config/memd" || RuntimeSocketPath() != "/run/user/1000/memd/memd.sock" {
		t.Errorf("with XDG variables: %s %s %s", DataDir(), ConfigDir(), RuntimeSocketPath())
	}
	var c Config
	if c.DataFolder() != "/x/data/memd" || c.ModelsFolder() != "/x/data/memd/models" || c.SocketPath() != "/run/user/1000/memd/memd.sock" {
		t.Errorf("zero Config folders: %s %s %s", c.DataFolder(), c.ModelsFolder(), c.SocketPath())
	}
	c = Config{Data: "/d", Socket: "/s.sock", LogLevel: "warn"}
	if c.ModelsFolder() != "/d/models" || c.SocketPath() != "/s.sock" || c.SlogLevel().String() != "WARN" {
		t.Errorf("set Config folders: %s %s %v", c.ModelsFolder(), c.SocketPath(), c.SlogLevel())
	}
}

func TestFilePath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	RegisterFlags(fs)
	if got := FilePath(fs, envOf(nil)); got != "/cfg/memd/config.toml" {
		t.Errorf("default %s", got)
	}
	if got := FilePath(fs, envOf(map[string]string{EnvConfig: "/env.toml"})); got != "/env.toml" {
		t.Errorf("env %s", got)
	}
	if err := fs.Parse([]string{"--config=/flag.toml"}); err != nil {
		t.Fatal(err)
	}
	if got := FilePath(fs, envOf(map[string]string{EnvConfig: "/env.toml"})); got != "/flag.toml" {
		t.Errorf("flag %s", got)
	}
}

func TestRegisterSomeFlags(t *testing.T) {
	fs := pflag.NewFlagSet("memctl", pflag.ContinueOnError)
	RegisterFlags(fs, "data", "models")
	if fs.Lookup("config") == nil || fs.Lookup("data") == nil || fs.Lookup("models") == nil || fs.Lookup("threads") != nil {
		t.Fatal("want --config, --data and --models only")
	}
	if err := fs.Parse([]string{"--models=/m"}); err != nil {
		t.Fatal(err)
	}
	c := Config{Threads: 3}
	if err := ApplyFlags(fs, &c); err != nil || c.Models != "/m" || c.Threads != 3 {
		t.Errorf("ApplyFlags: %+v, %v", c, err)
	}
	other := pflag.NewFlagSet("x", pflag.ContinueOnError)
	other.Int("threads", 0, "")
	other.Parse([]string{"--threads=2"})
	if err := ApplyFlags(other, &c); err == nil || !strings.Contains(err.Error(), "RegisterFlags") {
		t.Errorf("a hand-made --threads: %v", err)
	}
}

func TestKeys(t *testing.T) {
	seen := map[string]bool{}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	RegisterFlags(fs)
	for _, k := range Keys() {
		for _, n := range []string{"name:" + k.Name, "flag:" + k.Flag, "env:" + k.Env} {
			if seen[n] {
				t.Errorf("%s twice", n)
			}
			seen[n] = true
		}
		if !strings.HasPrefix(k.Env, "MEMD_") || k.Usage == "" || fs.Lookup(k.Flag) == nil {
			t.Errorf("key %+v: env, usage or flag missing", k)
		}
	}
	for _, want := range []string{"data", "socket", "lib_dir", "generator", "embedder", "reranker", "adapters", "max_file_bytes", "threads", "gpu_layers", "slots", "log_level", "recall.rrf_k", "recall.bm25_weight", "recall.vector_weight", "tcp.listen", "tcp.token_file"} {
		if !seen["name:"+want] {
			t.Errorf("no key %s", want)
		}
	}
	if s, _ := lookup("lib_dir"); s.Env != "MEMD_LLAMA_LIB" {
		t.Errorf("lib_dir's env is %s", s.Env)
	}
}
