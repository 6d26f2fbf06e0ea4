package main

import (
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"4MiB": 4 << 20, "4M": 4 << 20, "500kB": 500000, "1000": 1000, "1.5 GiB": 3 << 29, "10b": 10} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("%q: %d %v, want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "0", "4XB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("%q accepted as %d", in, b)
		}
	}
}

func TestConfigPrecedence(t *testing.T) {
	t.Setenv("MEMD_DATA", "/env/data")
	t.Setenv("MEMD_SOCKET", "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	t.Setenv("MEMD_MAX_FILE_BYTES", "1MiB")
	var c config
	fs := pflag.NewFlagSet("memd", pflag.ContinueOnError)
	c.register(fs)
	if err := fs.Parse([]string{"--log-level", "debug"}); err != nil {
		t.Fatal(err)
	}
	if err := c.resolve(fs); err != nil {
		t.Fatal(err)
	}
	if c.data != "/env/data" || c.socket != filepath.Join("/run/user/7", "memd", "memd.sock") || c.maxFileBytes != 1<<20 {
		t.Fatalf("%+v", c)
	}
	c = config{}
	fs = pflag.NewFlagSet("memd", pflag.ContinueOnError)
	c.register(fs)
	fs.Parse([]string{"--data", "rel", "--max-file-bytes", "2MiB", "--log-level", "loud"})
	if err := c.resolve(fs); err == nil {
		t.Fatal("log level loud accepted")
	}
	if !filepath.IsAbs(c.data) || c.maxFileBytes != 2<<20 {
		t.Fatalf("%+v", c)
	}
}
