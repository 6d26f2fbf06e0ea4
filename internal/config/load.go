package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// EnvConfig names the config file when --config does not.
const EnvConfig = "MEMD_CONFIG"

// Load reads the config file at path and then the environment through env
// (os.Getenv, or a map's lookup in tests), so that a variable overrides the
// file's key; ApplyFlags then lets flags override both. A missing file is
// not an error: it reads as empty. A nil env reads no environment: that is
// how `memctl model set` loads the file alone before Save writes it back.
//
// Errors name the file and line, or the variable, and what was expected:
// an unknown key (with the nearest known one), a value of the wrong type, a
// number out of range, a log level or address memd does not accept.
// Relative paths in the file are taken from the file's folder, those in the
// environment from the working folder; a leading ~ is the home folder.
func Load(path string, env func(string) string) (Config, error) {
	var c Config
	if path != "" {
		if err := c.readFile(path); err != nil {
			return Config{}, err
		}
	}
	if env != nil {
		if err := c.applyEnv(env); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// readFile applies the file's keys to c.
func (c *Config) readFile(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	return c.decode(path, string(b))
}

// decode applies the TOML document text, read from path, to c.
func (c *Config) decode(path, text string) error {
	var doc map[string]any
	if err := toml.Unmarshal([]byte(text), &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return fmt.Errorf("config %s:%d: %s: fix the TOML syntax", path, line, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	idx := indexDoc(text)
	at := func(name string) string {
		if n := idx.lineOf(name); n > 0 {
			return fmt.Sprintf("config %s:%d", path, n)
		}
		return "config " + path
	}
	keys := keysOf(doc, nil, nil)
	// In the file's order, so that of two mistakes the first is named.
	slices.SortStableFunc(keys, func(a, b []string) int {
		return idx.lineOf(strings.Join(a, ".")) - idx.lineOf(strings.Join(b, "."))
	})
	for _, k := range keys {
		name := strings.Join(k, ".")
		switch {
		case len(k) == 1 && slices.Contains(tables, k[0]):
			if _, ok := doc[k[0]].(map[string]any); !ok {
				return fmt.Errorf("%s: %s: expected a table ([%s]), got %s", at(name), name, name, tomlTypeName(doc[k[0]]))
			}
		case k[0] == "adapters" && len(k) >= 2:
			// The adapters setting reads its whole table below.
		default:
			if _, ok := lookup(name); !ok {
				return fmt.Errorf("%s: unknown key %q%s", at(name), name, suggest(name))
			}
		}
	}
	base := filepath.Dir(path)
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	for _, s := range settings {
		v, ok := valueAt(doc, s.Name)
		if !ok {
			continue
		}
		if err := s.setTOML(c, v, base); err != nil {
			return fmt.Errorf("%s: %w", at(s.Name), err)
		}
	}
	return nil
}

// keysOf appends the keys of table, under prefix, to keys: each key, and
// after a table's key the keys it holds, each in name order.
func keysOf(table map[string]any, prefix []string, keys [][]string) [][]string {
	for _, name := range slices.Sorted(maps.Keys(table)) {
		k := append(slices.Clip(prefix), name)
		keys = append(keys, k)
		if sub, ok := table[name].(map[string]any); ok {
			keys = keysOf(sub, k, keys)
		}
	}
	return keys
}

// valueAt is the decoded value of a dotted name.
func valueAt(doc map[string]any, name string) (any, bool) {
	parts := strings.Split(name, ".")
	var v any = doc
	for _, p := range parts {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// applyEnv applies every set MEMD_* variable of the settings to c. An empty
// variable counts as unset, as shells make unsetting awkward.
func (c *Config) applyEnv(env func(string) string) error {
	for _, s := range settings {
		v := env(s.Env)
		if v == "" {
			continue
		}
		if err := s.setString(c, v); err != nil {
			return fmt.Errorf("environment %s=%q: %w", s.Env, v, err)
		}
	}
	return nil
}

// suggest is `: did you mean "x"?` for the known key nearest to name, or ""
// when none is near.
func suggest(name string) string {
	norm := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	best, bestD := "", 4
	for _, s := range settings {
		if s.Name == norm || strings.TrimPrefix(s.Env, "MEMD_") == strings.ToUpper(norm) {
			return fmt.Sprintf(" (did you mean %q?)", s.Name)
		}
		short := s.Name[strings.LastIndexByte(s.Name, '.')+1:]
		for _, cand := range []string{s.Name, short} {
			if d := editDistance(norm, cand); d < bestD {
				best, bestD = s.Name, d
			}
		}
	}
	if best == "" {
		return ": the keys are " + knownKeys()
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func knownKeys() string {
	names := make([]string, len(settings))
	for i, s := range settings {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
