package runtime

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSelectPackage(t *testing.T) {
	linux := Host{GOOS: "linux", GOARCH: "amd64"}
	gpu := Host{GOOS: "linux", GOARCH: "amd64", NVIDIA: true}
	mac := Host{GOOS: "darwin", GOARCH: "arm64"}
	cases := []struct {
		host    Host
		backend string
		want    string
		err     error
	}{
		{linux, "", "@node-llama-cpp/linux-x64@3.22.1", nil},
		{linux, "auto", "@node-llama-cpp/linux-x64@3.22.1", nil},
		{gpu, "", "@node-llama-cpp/linux-x64-cuda@3.22.1", nil},
		{gpu, "cpu", "@node-llama-cpp/linux-x64@3.22.1", nil},
		{linux, "vulkan", "@node-llama-cpp/linux-x64-vulkan@3.22.1", nil},
		{linux, "CUDA", "@node-llama-cpp/linux-x64-cuda@3.22.1", nil},
		{mac, "", "@node-llama-cpp/mac-arm64-metal@3.21.1", nil},
		{mac, "metal", "@node-llama-cpp/mac-arm64-metal@3.21.1", nil},
		{linux, "metal", "", ErrNoPackage},
		{mac, "cpu", "", ErrNoPackage},
		{linux, "rocm", "", ErrNoPackage},
		{Host{GOOS: "windows", GOARCH: "amd64"}, "", "", ErrNoPackage},
	}
	for _, c := range cases {
		p, err := SelectPackage(c.host, c.backend)
		if !errors.Is(err, c.err) || (err == nil && p.Spec() != c.want) {
			t.Errorf("%+v %q: got %q, %v; want %q, %v", c.host, c.backend, p.Spec(), err, c.want, c.err)
		}
	}
}

type entry struct {
	name, body, link string
	typ              byte
}

func tarball(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: e.typ, Linkname: e.link}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func metadata(release string) string {
	return `{"buildOptions":{"gpu":false,"llamaCpp":{"repo":"ggml-org/llama.cpp","release":"` + release + `"}}}`
}

func goodPackage(t *testing.T, release string) []byte {
	return tarball(t,
		entry{name: "package/package.json", body: "{}"},
		entry{name: "package/bins/linux-x64/", typ: tar.TypeDir},
		entry{name: "package/bins/linux-x64/" + metadataFile, body: metadata(release)},
		entry{name: "package/bins/linux-x64/libllama." + release + ".so", body: "ELF llama"},
		entry{name: "package/bins/linux-x64/libggml-base.so", body: "ELF ggml"},
		entry{name: "package/bins/linux-x64/libggml.so", typ: tar.TypeSymlink, link: "libggml-base.so"},
		entry{name: "package/bins/linux-x64-cuda/libllama.cuda." + release + ".so", body: "other platform"},
	)
}

func TestExtract(t *testing.T) {
	dest := t.TempDir()
	if err := Extract(bytes.NewReader(goodPackage(t, "v0.5.0")), "linux-x64", dest); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"libllama.v0.5.0.so": "ELF llama", "libggml-base.so": "ELF ggml", "libggml.so": "ELF ggml"} {
		b, err := os.ReadFile(filepath.Join(dest, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	for _, absent := range []string{"package.json", "libllama.cuda.v0.5.0.so"} {
		if _, err := os.Stat(filepath.Join(dest, absent)); err == nil {
			t.Errorf("%s was extracted", absent)
		}
	}
	if info, err := ReadBuildInfo(dest); err != nil || info.Release != "v0.5.0" || info.Repo != "ggml-org/llama.cpp" {
		t.Errorf("build info %+v, %v", info, err)
	}
}

func TestExtractRejects(t *testing.T) {
	p := "package/bins/linux-x64/"
	cases := map[string][]byte{
		"parent path":    tarball(t, entry{name: p + "ok.so", body: "x"}, entry{name: p + "../../../evil.so", body: "x"}),
		"absolute link":  tarball(t, entry{name: p + "ok.so", body: "x"}, entry{name: p + "l.so", typ: tar.TypeSymlink, link: "/etc/passwd"}),
		"escaping link":  tarball(t, entry{name: p + "l.so", typ: tar.TypeSymlink, link: "../../x"}),
		"device":         tarball(t, entry{name: p + "dev", typ: tar.TypeChar}),
		"no platform":    tarball(t, entry{name: "package/bins/mac-arm64-metal/libllama.metal.v0.4.0.dylib", body: "x"}),
		"not gzip":       []byte("plain text"),
		"truncated gzip": goodPackage(t, "v0.5.0")[:100],
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "d")
			if err := Extract(bytes.NewReader(data), "linux-x64", dest); !errors.Is(err, ErrBadPackage) {
				t.Fatalf("err = %v", err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "evil.so")); err == nil {
				t.Fatal("wrote outside dest")
			}
		})
	}
}

// fakeNPM writes an npm stand-in that copies tgz into --pack-destination
// and records its arguments.
func fakeNPM(t *testing.T, tgz []byte) (npm, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "pkg.tgz")
	if err := os.WriteFile(src, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	argsFile = filepath.Join(dir, "args")
	npm = filepath.Join(dir, "npm")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\n" +
		"while [ $# -gt 0 ]; do if [ \"$1\" = --pack-destination ]; then cp " + src + " \"$2/node-llama-cpp-linux-x64-3.22.1.tgz\"; fi; shift; done\n"
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, argsFile
}

func TestInstall(t *testing.T) {
	cache := t.TempDir()
	host := &Host{GOOS: "linux", GOARCH: "amd64"}
	npm, args := fakeNPM(t, goodPackage(t, "v0.5.0"))
	o := InstallOptions{Options: Options{CacheDir: cache, Host: host}, NPM: npm}
	dir, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "linux-x64@3.22.1"); dir != want {
		t.Errorf("installed to %s, want %s", dir, want)
	}
	got, _ := os.ReadFile(args)
	if !strings.HasPrefix(string(got), "pack @node-llama-cpp/linux-x64@3.22.1 --pack-destination ") {
		t.Errorf("npm called with %q", got)
	}
	t.Setenv(EnvLibDir, "")
	if found, err := Find(o.Options); err != nil || found != dir {
		t.Errorf("Find = %s, %v", found, err)
	}

	// A package of a release the binding does not accept is refused, and
	// the working install stays.
	o.NPM, _ = fakeNPM(t, goodPackage(t, "v0.9.0"))
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrBadPackage) || !strings.Contains(err.Error(), "v0.9.0") {
		t.Fatalf("wrong release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "libllama.v0.5.0.so")); err != nil {
		t.Errorf("previous install lost: %v", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache holds %d entries, want only the install", len(entries))
	}

	o.NPM = filepath.Join(t.TempDir(), "no-npm")
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrNPM) || !strings.Contains(err.Error(), EnvLibDir) {
		t.Errorf("missing npm: %v", err)
	}
	failing := filepath.Join(t.TempDir(), "npm")
	os.WriteFile(failing, []byte("#!/bin/sh\necho 'npm ERR! 404 Not Found' >&2\nexit 1\n"), 0o755)
	o.NPM = failing
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrNPM) || !strings.Contains(err.Error(), "404") {
		t.Errorf("failing npm: %v", err)
	}
}

func TestFind(t *testing.T) {
	lib := t.TempDir()
	os.WriteFile(filepath.Join(lib, "libllama.v0.5.0.so"), nil, 0o644)
	wrong := t.TempDir()
	os.WriteFile(filepath.Join(wrong, "libllama.v0.9.0.so"), nil, 0o644)
	cache := t.TempDir()
	host := &Host{GOOS: "linux", GOARCH: "amd64", NVIDIA: true}
	cpuDir := filepath.Join(cache, "linux-x64@3.22.1")
	os.MkdirAll(cpuDir, 0o755)
	os.WriteFile(filepath.Join(cpuDir, "libllama.v0.5.0.so"), nil, 0o644)

	cases := []struct {
		name string
		env  string
		o    Options
		want string
		err  string
	}{
		{"lib dir first", wrong, Options{LibDir: lib, CacheDir: cache, Host: host}, lib, ""},
		{"env", lib, Options{CacheDir: cache, Host: host}, lib, ""},
		{"env wrong version", wrong, Options{CacheDir: cache, Host: host}, "", "v0.9.0"},
		{"cache falls back from cuda to cpu", "", Options{CacheDir: cache, Host: host}, cpuDir, ""},
		{"backend not installed", "", Options{CacheDir: cache, Host: host, Backend: "vulkan"}, "", "memd runtime install"},
		{"nothing", "", Options{CacheDir: t.TempDir(), Host: host}, "", "MEMD_LLAMA_LIB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvLibDir, c.env)
			got, err := Find(c.o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Find = %q, %v; want error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestCacheRoot(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	t.Setenv("HOME", "/tmp/home")
	root, err := Options{}.CacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/tmp/xdg", "memd", "llama"); root != want && !strings.HasSuffix(root, filepath.Join("Library", "Caches", "memd", "llama")) {
		t.Errorf("cache root %s", root)
	}
}

// TestInstallNPM runs the real npm client; it needs the network.
func TestInstallNPM(t *testing.T) {
	if os.Getenv("MEMD_TEST_NPM") != "1" {
		t.Skip("set MEMD_TEST_NPM=1 to run `npm pack` against the npm registry")
	}
	dir, err := Install(context.Background(), InstallOptions{Options: Options{CacheDir: t.TempDir(), Backend: "cpu"}, Output: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadBuildInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("installed llama.cpp %s into %s", info.Release, dir)
}

// TestInstallOffline runs the real npm against a registry nobody answers
// on, as on a machine without network: the install fails at once, says
// npm could not reach its registry, and names the ways without it.
func TestInstallOffline(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	t.Setenv("npm_config_registry", "http://127.0.0.1:9/")
	t.Setenv("npm_config_cache", t.TempDir())
	t.Setenv("npm_config_offline", "")
	var out strings.Builder
	o := InstallOptions{Options: Options{CacheDir: t.TempDir(), Host: &Host{GOOS: "linux", GOARCH: "amd64"}}, NPM: npm, Output: &out}
	start := time.Now()
	_, err = Install(context.Background(), o)
	t.Logf("after %v: %v", time.Since(start), err)
	if !errors.Is(err, ErrNPM) {
		t.Fatalf("install with no registry: %v", err)
	}
	for _, want := range []string{"could not reach its registry", EnvLibDir, "scripts/build-llama.sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if !strings.Contains(out.String(), "this needs the network") {
		t.Errorf("install said nothing before npm ran: %q", out.String())
	}
}
