package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// FlagConfig is the flag that names the config file.
const FlagConfig = "config"

// RegisterFlags defines on fs --config and a flag for every key Keys lists,
// or only for the keys named in only (e.g. "data", "models" for a memctl
// command that needs no model flags). A cobra command calls it on
// cmd.Flags() (or PersistentFlags()) when it is built, and in RunE:
//
//	cfg, err := config.Load(config.FilePath(cmd.Flags(), os.Getenv), os.Getenv)
//	if err == nil {
//		err = config.ApplyFlags(cmd.Flags(), &cfg)
//	}
//
// The flags hold text until ApplyFlags, so a flag that was not given never
// overrides the file or the environment. A bad value fails at parse time,
// with the same message the file and the environment would give.
func RegisterFlags(fs *pflag.FlagSet, only ...string) {
	fs.String(FlagConfig, "", fmt.Sprintf("config file (env %s; default %s)", EnvConfig, tilde(DefaultPath())))
	for _, s := range settings {
		if len(only) > 0 && !slices.Contains(only, s.Name) {
			continue
		}
		v := &flagValue{s: s}
		f := fs.VarPF(v, s.Flag, "", s.Usage+" (env "+s.Env+")")
		if s.kind == kindBool {
			f.NoOptDefVal = "true" // --recall-expand alone turns it on
		}
		switch s.Name {
		case "data":
			f.DefValue = tilde(DataDir())
		case "socket":
			f.DefValue = tilde(RuntimeSocketPath())
		}
	}
}

// FilePath is the config file to load: --config when given, else the
// MEMD_CONFIG variable, else DefaultPath(). fs may lack --config.
func FilePath(fs *pflag.FlagSet, env func(string) string) string {
	if f := fs.Lookup(FlagConfig); f != nil && f.Changed {
		return absPath(f.Value.String(), "")
	}
	if env != nil {
		if p := env(EnvConfig); p != "" {
			return absPath(p, "")
		}
	}
	return DefaultPath()
}

// ApplyFlags copies every flag RegisterFlags defined on fs that was given on
// the command line into c, over what Load read. --adapter merges by name
// into the file's and the environment's adapters; an empty path
// (--adapter memory-chunk=) removes one. Keys without a flag on fs are
// skipped; a flag of a key's name that RegisterFlags did not define is an
// error.
func ApplyFlags(fs *pflag.FlagSet, c *Config) error {
	for _, s := range settings {
		f := fs.Lookup(s.Flag)
		if f == nil || !f.Changed {
			continue
		}
		v, ok := f.Value.(*flagValue)
		if !ok {
			return fmt.Errorf("flag --%s was not defined by config.RegisterFlags", s.Flag)
		}
		for _, raw := range v.raw {
			if err := s.setString(c, raw); err != nil {
				return fmt.Errorf("flag --%s=%q: %w", s.Flag, raw, err)
			}
		}
	}
	return nil
}

// flagValue is a pflag.Value that checks its text as the setting's value
// and keeps it for ApplyFlags. --adapter keeps every occurrence.
type flagValue struct {
	s   setting
	raw []string
}

func (v *flagValue) String() string { return strings.Join(v.raw, ",") }
func (v *flagValue) Type() string   { return v.s.Type }

func (v *flagValue) Set(text string) error {
	if err := v.s.setString(&Config{}, text); err != nil {
		return err
	}
	if v.s.kind == kindAdapters {
		v.raw = append(v.raw, text)
	} else {
		v.raw = []string{text}
	}
	return nil
}
