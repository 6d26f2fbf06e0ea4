package config

import (
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Key describes one setting: its name in the file, its flag and its
// environment variable. The three always name the same value.
type Key struct {
	Name  string // in the file; a dot separates a table: "recall.rrf_k"
	Flag  string // without dashes: "recall-rrf-k"
	Env   string // "MEMD_RECALL_RRF_K"
	Type  string // what a value looks like, for help: "path", "int", ...
	Usage string // one line for --help
}

// Keys lists every setting, in the order Save writes them.
func Keys() []Key {
	ks := make([]Key, len(settings))
	for i, s := range settings {
		ks[i] = s.Key
	}
	return ks
}

type kind int

const (
	kindString   kind = iota
	kindPath          // ~ expanded, relative to the file's folder (or the working folder)
	kindInt           // an integer of at least min
	kindBytes         // a byte count: an integer, or "16MiB", "2MB"
	kindFloat         // a number of at least 0
	kindBool          // true or false
	kindLevel         // debug, info, warn, error
	kindAddr          // a loopback host:port
	kindAdapters      // a table of name → path
)

// setting is a Key and how to read and write its value in a Config.
type setting struct {
	Key
	kind kind
	min  int64
	ptr  func(*Config) any // *string, *int, *int64, *float64, *bool or *map[string]string
}

var settings = []setting{
	{Key{"data", "data", "MEMD_DATA", "path", "data folder: the store and the models folder"}, kindPath, 0, func(c *Config) any { return &c.Data }},
	{Key{"socket", "socket", "MEMD_SOCKET", "path", "the daemon's unix socket"}, kindPath, 0, func(c *Config) any { return &c.Socket }},
	{Key{"lib_dir", "lib-dir", "MEMD_LLAMA_LIB", "path", "folder with llama.cpp's shared libraries (default: found or fetched)"}, kindPath, 0, func(c *Config) any { return &c.LibDir }},
	{Key{"models", "models", "MEMD_MODELS", "path", "where memctl model pull puts models (default: models under the data folder)"}, kindPath, 0, func(c *Config) any { return &c.Models }},
	{Key{"generator", "generator", "MEMD_GENERATOR", "path", "generator model, a GGUF file (chunking, summaries, chat)"}, kindPath, 0, func(c *Config) any { return &c.Generator }},
	{Key{"embedder", "embedder", "MEMD_EMBEDDER", "path", "embedding model, a GGUF file"}, kindPath, 0, func(c *Config) any { return &c.Embedder }},
	{Key{"reranker", "reranker", "MEMD_RERANKER", "path", "reranker model, a GGUF file (optional)"}, kindPath, 0, func(c *Config) any { return &c.Reranker }},
	{Key{"adapters", "adapter", "MEMD_ADAPTERS", "name=path", "LoRA adapter as name=path, e.g. memory-chunk=PATH; repeatable, and the env takes name=path,name=path"}, kindAdapters, 0, func(c *Config) any { return &c.Adapters }},
	{Key{"max_file_bytes", "max-file-bytes", "MEMD_MAX_FILE_BYTES", "bytes", "largest note indexed, e.g. 4MiB (0: the default)"}, kindBytes, 0, func(c *Config) any { return &c.MaxFileBytes }},
	{Key{"threads", "threads", "MEMD_THREADS", "int", "CPU threads per decode (0: the default)"}, kindInt, 0, func(c *Config) any { return &c.Threads }},
	{Key{"gpu_layers", "gpu-layers", "MEMD_GPU_LAYERS", "int", "model layers offloaded to the GPU (0: the default)"}, kindInt, -1, func(c *Config) any { return &c.GPULayers }},
	{Key{"slots", "slots", "MEMD_SLOTS", "int", "requests a model context decodes together (0: the default)"}, kindInt, 0, func(c *Config) any { return &c.Slots }},
	{Key{"log_level", "log-level", "MEMD_LOG_LEVEL", "level", "debug, info, warn or error (default info)"}, kindLevel, 0, func(c *Config) any { return &c.LogLevel }},
	{Key{"recall.rrf_k", "recall-rrf-k", "MEMD_RECALL_RRF_K", "int", "k of reciprocal rank fusion (0: the default)"}, kindInt, 0, func(c *Config) any { return &c.Recall.RRFK }},
	{Key{"recall.bm25_weight", "recall-bm25-weight", "MEMD_RECALL_BM25_WEIGHT", "float", "weight of the BM25 list in the fusion (0: the default)"}, kindFloat, 0, func(c *Config) any { return &c.Recall.BM25Weight }},
	{Key{"recall.vector_weight", "recall-vector-weight", "MEMD_RECALL_VECTOR_WEIGHT", "float", "weight of the vector list in the fusion (0: the default)"}, kindFloat, 0, func(c *Config) any { return &c.Recall.VectorWeight }},
	{Key{"recall.max_in_flight", "max-recalls", "MEMD_MAX_RECALLS", "int", "recalls running at once (0: the default, 4 per CPU)"}, kindInt, 0, func(c *Config) any { return &c.Recall.MaxInFlight }},
	{Key{"recall.queue", "recall-queue", "MEMD_RECALL_QUEUE", "int", "recalls waiting for a turn, at most 2s, before memd answers 429 (0: the default, 64)"}, kindInt, 0, func(c *Config) any { return &c.Recall.Queue }},
	{Key{"recall.vector_floor", "recall-vector-floor", "MEMD_RECALL_VECTOR_FLOOR", "float", "cosine similarity a vector-only hit must pass, for the configured embedder (0: calibrated on the notes, negative: none)"}, kindFloat, 0, func(c *Config) any { return &c.Recall.VectorFloor }},
	{Key{"recall.expand", "recall-expand", "MEMD_RECALL_EXPAND", "bool", "expand every query from the notes it finds first, unless a request says otherwise (default false)"}, kindBool, 0, func(c *Config) any { return &c.Recall.Expand }},
	{Key{"chat.max_in_flight", "max-chats", "MEMD_MAX_CHATS", "int", "chats queued or generating at once before memd answers 429 (0: the default, 64)"}, kindInt, 0, func(c *Config) any { return &c.Chat.MaxInFlight }},
	{Key{"tcp.listen", "tcp-listen", "MEMD_TCP_LISTEN", "host:port", "loopback address for the TCP listener (default: off)"}, kindAddr, 0, func(c *Config) any { return &c.TCP.Listen }},
	{Key{"tcp.token_file", "tcp-token-file", "MEMD_TCP_TOKEN_FILE", "path", "file holding the TCP listener's bearer token"}, kindPath, 0, func(c *Config) any { return &c.TCP.TokenFile }},
}

// tables are the names of the file's tables, each of which holds settings
// named "<table>.<key>"; adapters is a table of free names.
var tables = []string{"adapters", "recall", "chat", "tcp"}

func lookup(name string) (setting, bool) {
	for _, s := range settings {
		if s.Name == name {
			return s, true
		}
	}
	return setting{}, false
}

// typeError says what a value should have been.
func (s setting) typeError(got string) error {
	want := map[kind]string{
		kindString: "a string", kindPath: "a path (a string)", kindInt: "an integer",
		kindBytes: `a byte count (an integer or a string such as "16MiB")`, kindFloat: "a number", kindBool: "true or false",
		kindLevel: `one of "debug", "info", "warn", "error"`, kindAddr: `a loopback "host:port" string`,
		kindAdapters: `a table of name = "path"`,
	}[s.kind]
	return fmt.Errorf("%s: expected %s, got %s", s.Name, want, got)
}

// setTOML stores v, a value the TOML decoder produced, resolving relative
// paths against base.
func (s setting) setTOML(c *Config, v any, base string) error {
	if s.kind == kindAdapters {
		t, ok := v.(map[string]any)
		if !ok {
			return s.typeError(tomlTypeName(v))
		}
		m := map[string]string{}
		for name, p := range t {
			ps, ok := p.(string)
			if !ok {
				return fmt.Errorf("adapters.%s: expected a path (a string), got %s", name, tomlTypeName(p))
			}
			if err := checkAdapterName(name); err != nil {
				return err
			}
			if ps != "" {
				m[name] = absPath(ps, base)
			}
		}
		if len(m) == 0 {
			m = nil
		}
		*s.ptr(c).(*map[string]string) = m
		return nil
	}
	switch x := v.(type) {
	case bool:
		if s.kind == kindBool {
			*s.ptr(c).(*bool) = x
			return nil
		}
		return s.typeError(fmt.Sprintf("a boolean (%v)", x))
	case string:
		if s.kind == kindInt || s.kind == kindFloat || s.kind == kindBool {
			return s.typeError(fmt.Sprintf("a string (%q)", x))
		}
		return s.set(c, x, base)
	case int64:
		switch s.kind {
		case kindInt, kindBytes:
			return s.setInt(c, x)
		case kindFloat:
			return s.setFloat(c, float64(x))
		}
		return s.typeError(fmt.Sprintf("an integer (%d)", x))
	case float64:
		if s.kind == kindFloat {
			return s.setFloat(c, x)
		}
		return s.typeError(fmt.Sprintf("a float (%v)", x))
	}
	return s.typeError(tomlTypeName(v))
}

// setString stores a value given as text (a flag or an environment
// variable); relative paths are taken from the working folder.
func (s setting) setString(c *Config, v string) error {
	switch s.kind {
	case kindInt:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if err != nil {
			return s.typeError(fmt.Sprintf("%q", v))
		}
		return s.setInt(c, n)
	case kindFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return s.typeError(fmt.Sprintf("%q", v))
		}
		return s.setFloat(c, f)
	case kindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return s.typeError(fmt.Sprintf("%q", v))
		}
		*s.ptr(c).(*bool) = b
		return nil
	case kindAdapters:
		return s.mergeAdapters(c, v)
	}
	return s.set(c, v, "")
}

// set stores a textual value of any kind but the table.
func (s setting) set(c *Config, v, base string) error {
	switch s.kind {
	case kindString:
		*s.ptr(c).(*string) = v
	case kindPath:
		*s.ptr(c).(*string) = absPath(v, base)
	case kindLevel:
		l := strings.ToLower(strings.TrimSpace(v))
		if !slices.Contains([]string{"", "debug", "info", "warn", "error"}, l) {
			return s.typeError(fmt.Sprintf("%q", v))
		}
		*s.ptr(c).(*string) = l
	case kindAddr:
		if err := checkLoopback(v); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		*s.ptr(c).(*string) = v
	case kindBytes:
		n, err := parseBytes(v)
		if err != nil {
			return s.typeError(fmt.Sprintf("%q", v))
		}
		return s.setInt(c, n)
	case kindInt, kindFloat, kindBool:
		return s.setString(c, v)
	default:
		return s.typeError(fmt.Sprintf("%q", v))
	}
	return nil
}

func (s setting) setInt(c *Config, n int64) error {
	if n < s.min {
		return fmt.Errorf("%s: must be at least %d, got %d", s.Name, s.min, n)
	}
	switch p := s.ptr(c).(type) {
	case *int:
		if n > math.MaxInt32 {
			return fmt.Errorf("%s: %d is too large", s.Name, n)
		}
		*p = int(n)
	case *int64:
		*p = n
	}
	return nil
}

func (s setting) setFloat(c *Config, f float64) error {
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s: must be a finite number of at least 0, got %v", s.Name, f)
	}
	*s.ptr(c).(*float64) = f
	return nil
}

// mergeAdapters adds "name=path,name=path" to the adapters already set; an
// empty path removes that name.
func (s setting) mergeAdapters(c *Config, v string) error {
	p := s.ptr(c).(*map[string]string)
	m := maps.Clone(*p)
	if m == nil {
		m = map[string]string{}
	}
	for _, entry := range strings.Split(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, path, ok := strings.Cut(entry, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return fmt.Errorf("adapters: expected name=path, got %q (e.g. memory-chunk=/path/to/adapter.gguf)", entry)
		}
		if err := checkAdapterName(name); err != nil {
			return err
		}
		if path == "" {
			delete(m, name)
		} else {
			m[name] = absPath(path, "")
		}
	}
	if len(m) == 0 {
		m = nil
	}
	*p = m
	return nil
}

func checkAdapterName(name string) error {
	if name == "" || strings.ContainsAny(name, "=, \t\"'.") {
		return fmt.Errorf("adapters: %q is not an adapter name: use letters, digits, - and _ (e.g. memory-chunk)", name)
	}
	return nil
}

func checkLoopback(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. 127.0.0.1:7077)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has no valid port (e.g. 127.0.0.1:7077)", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address: memd listens on TCP on this machine only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// parseBytes reads "4194304", "4MiB", "4 MB", "512KiB".
func parseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		return strconv.ParseInt(v, 10, 64)
	}
	num, unit := v[:i], strings.TrimSpace(v[i:])
	mult, ok := map[string]float64{
		"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	}[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || f*mult > math.MaxInt64 {
		return 0, fmt.Errorf("bad byte count %q", v)
	}
	return int64(f * mult), nil
}

// absPath expands a leading ~ and makes p absolute against base, or the
// working folder when base is "".
func absPath(p, base string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if base != "" {
		return filepath.Join(base, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// tilde shortens a path under the home folder for help text.
func tilde(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time, toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return "a date or time"
	}
	return fmt.Sprintf("a %T", v)
}
