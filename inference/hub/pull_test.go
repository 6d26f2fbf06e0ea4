package hub

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	repoName  = "google/gemma-test-GGUF"
	modelFile = "gemma-test-Q4_K_M.gguf"
)

func setup(t *testing.T, gated bool) (*fakeHub, []byte, string) {
	t.Helper()
	h := newFakeHub(t)
	model := testModel(t, "gemma-test")
	h.addRepo(repoName, gated, map[string]fakeFile{
		modelFile:             {data: model, lfs: true},
		"sub/dir/nested.gguf": {data: model, lfs: true},
		"README.md":           {data: []byte("# gemma test\n")},
		"fake.gguf":           {data: []byte("not a model, but in git"), lfs: false},
	})
	return h, model, t.TempDir()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPullFollowsCDNRedirectWithoutToken(t *testing.T) {
	h, model, dir := setup(t, true)
	c := h.client()
	c.Token = goodToken
	var last, total int64
	path, err := c.Pull(context.Background(), repoName, modelFile, dir, "", func(done, tot int64) { last, total = done, tot })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "google__gemma-test-GGUF", modelFile); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("downloaded bytes differ from the hub's")
	}
	if last != int64(len(model)) || total != int64(len(model)) {
		t.Errorf("last progress %d/%d, want %d/%d", last, total, len(model), len(model))
	}
	if _, err := os.Stat(path + ".partial"); !os.IsNotExist(err) {
		t.Errorf("partial file left behind: %v", err)
	}
	hubAuth, cdnAuth, _ := h.seen()
	for _, a := range hubAuth {
		if a != "Bearer "+goodToken {
			t.Errorf("hub saw Authorization %q, want the bearer token", a)
		}
	}
	if len(cdnAuth) == 0 {
		t.Fatal("the CDN was never asked")
	}
	for _, a := range cdnAuth {
		if a != "" {
			t.Errorf("the CDN received Authorization %q: the token leaked to another host", a)
		}
	}
}

func TestPullResumesAcrossPulls(t *testing.T) {
	h, model, dir := setup(t, false)
	c := h.client()
	cut := len(model) / 3
	h.cutAfter = cut
	_, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "run the same command again to resume") {
		t.Fatalf("cut-off download: %v, want ErrInterrupted saying how to resume", err)
	}
	partial := LocalPath(dir, repoName, modelFile) + ".partial"
	if st, err := os.Stat(partial); err != nil || st.Size() != int64(cut) {
		t.Fatalf("partial file after the cut: %v, %v; want %d bytes", st, err, cut)
	}
	var first int64 = -1
	path, err := c.Pull(context.Background(), repoName, modelFile, dir, "", func(done, _ int64) {
		if first < 0 {
			first = done
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("resumed file differs from the hub's")
	}
	if first != int64(cut) {
		t.Errorf("progress started at %d, want the resumed %d", first, cut)
	}
	_, _, ranges := h.seen()
	if got, want := ranges[len(ranges)-1], "bytes="+strconv.Itoa(cut)+"-"; got != want {
		t.Errorf("second GET sent Range %q, want %q", got, want)
	}
}

func TestPullResumesWithinOnePull(t *testing.T) {
	h, model, dir := setup(t, false)
	c := h.client()
	c.Attempts = 3
	h.cutAfter = 1000
	path, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("file differs from the hub's")
	}
	_, _, ranges := h.seen()
	if len(ranges) != 2 || ranges[0] != "" || ranges[1] != "bytes=1000-" {
		t.Errorf("CDN saw ranges %q, want a full GET then bytes=1000-", ranges)
	}
}

func TestPullCutsStalledConnection(t *testing.T) {
	h, model, dir := setup(t, false)
	c := h.client()
	c.Attempts, c.stall = 2, 50*time.Millisecond
	h.stallAfter = 1000
	path, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("file differs from the hub's")
	}
	if _, _, ranges := h.seen(); len(ranges) != 2 || ranges[1] != "bytes=1000-" {
		t.Errorf("CDN saw ranges %q, want a stalled GET then bytes=1000-", ranges)
	}
}

func TestPullCancelledKeepsPartial(t *testing.T) {
	h, _, dir := setup(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.stallAfter = 1000
	_, err := h.client().Pull(ctx, repoName, modelFile, dir, "", func(done, _ int64) {
		if done > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("cancelled Pull: %v, want context.Canceled and how to resume", err)
	}
	if st, err := os.Stat(LocalPath(dir, repoName, modelFile) + ".partial"); err != nil || st.Size() != 1000 {
		t.Errorf("partial after cancel: %v %v, want 1000 bytes kept", st, err)
	}
}

func TestPullRestartsWhenServerIgnoresRange(t *testing.T) {
	h, model, dir := setup(t, false)
	dest := LocalPath(dir, repoName, modelFile)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		t.Fatal(err)
	}
	// A partial file the server will not resume: its bytes are wrong too,
	// so only a restart from zero gives the right file.
	if err := os.WriteFile(dest+".partial", bytes.Repeat([]byte{0xAA}, 5000), 0o600); err != nil {
		t.Fatal(err)
	}
	h.ignoreRange = true
	path, err := h.client().Pull(context.Background(), repoName, modelFile, dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("file differs from the hub's after a restart on 200")
	}
}

func TestPullErrors(t *testing.T) {
	cases := []struct {
		name      string
		repo      string
		file      string
		rev       string
		token     string
		gated     bool
		arrange   func(*fakeHub)
		is        error
		says      string
		noPartial bool
	}{
		{name: "gated without token", repo: repoName, file: modelFile, gated: true,
			is: ErrUnauthorized, says: "this repo needs a token: set HF_TOKEN (and accept the licence on the model page"},
		{name: "gated with a refused token", repo: repoName, file: modelFile, gated: true, token: "hf_bad",
			is: ErrUnauthorized, says: "accept the licence on "},
		{name: "missing file", repo: repoName, file: "nope.gguf",
			is: ErrNotFound, says: "no file nope.gguf in repo " + repoName + " at revision main"},
		{name: "missing revision", repo: repoName, file: modelFile, rev: "v9",
			is: ErrNotFound, says: "no revision v9 in repo " + repoName},
		{name: "missing or private repo", repo: "nobody/nothing", file: modelFile,
			is: ErrNotFound, says: "or it is private"},
		{name: "wrong checksum", repo: repoName, file: modelFile, arrange: func(h *fakeHub) { h.corrupt = true },
			is: ErrChecksum, says: "the partial file was deleted", noPartial: true},
		{name: "wrong checksum from model-info", repo: repoName, file: modelFile,
			arrange: func(h *fakeHub) { h.corrupt, h.dropLinked = true, true },
			is:      ErrChecksum, says: "sha256", noPartial: true},
		{name: "intact but not a model", repo: repoName, file: "fake.gguf",
			is: ErrNotModel, says: "not a model memd can load", noPartial: true},
		{name: "bad repo name", repo: "no-slash", file: modelFile, says: "owner/name"},
		{name: "file escaping the folder", repo: repoName, file: "../../etc/passwd", says: "not a path inside repo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _, dir := setup(t, tc.gated)
			if tc.arrange != nil {
				tc.arrange(h)
			}
			c := h.client()
			c.Token = tc.token
			_, err := c.Pull(context.Background(), tc.repo, tc.file, dir, tc.rev, nil)
			if err == nil {
				t.Fatal("Pull succeeded")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
			if tc.noPartial {
				dest := LocalPath(dir, tc.repo, tc.file)
				for _, p := range []string{dest, dest + ".partial"} {
					if _, err := os.Stat(p); !os.IsNotExist(err) {
						t.Errorf("%s left behind", p)
					}
				}
			}
		})
	}
}

func TestPullKeepsCurrentFile(t *testing.T) {
	h, model, dir := setup(t, false)
	c := h.client()
	if _, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil); err != nil {
		t.Fatal(err)
	}
	path, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ranges := h.seen(); len(ranges) != 1 {
		t.Errorf("CDN asked %d times, want once: a current file is not downloaded again", len(ranges))
	}
	// A damaged local copy is replaced.
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, len(model)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pull(context.Background(), repoName, modelFile, dir, "", nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("damaged local copy was not replaced")
	}
}

func TestPullNestedFileAndRevision(t *testing.T) {
	h, model, dir := setup(t, false)
	path, err := h.client().Pull(context.Background(), repoName, "sub/dir/nested.gguf", dir, "refs/pr/1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "google__gemma-test-GGUF", "sub", "dir", "nested.gguf"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	if !bytes.Equal(readFile(t, path), model) {
		t.Error("file differs")
	}
}

func TestStat(t *testing.T) {
	h, model, _ := setup(t, false)
	h.renamed["google/old-name"] = repoName
	c := h.client()
	ctx := context.Background()

	f, err := c.Stat(ctx, "google/old-name", modelFile, "")
	if err != nil {
		t.Fatal(err)
	}
	if f.SHA256 != sha256Of(model) || f.Size != int64(len(model)) || f.Commit == "" || f.Revision != "main" {
		t.Errorf("LFS file through a renamed repo: %+v", f)
	}

	small, err := c.Stat(ctx, repoName, "README.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if small.SHA256 != "" || small.ETag != gitBlobSHA1([]byte("# gemma test\n")) || small.Size != 13 {
		t.Errorf("small file: %+v", small)
	}

	h.dropLinked = true
	mirror, err := c.Stat(ctx, repoName, modelFile, "")
	if err != nil {
		t.Fatal(err)
	}
	if mirror.SHA256 != sha256Of(model) || mirror.Size != int64(len(model)) {
		t.Errorf("without X-Linked headers, the model-info API should give sha256 and size: %+v", mirror)
	}
}

func TestCheckSpace(t *testing.T) {
	err := checkSpace(t.TempDir(), 1<<62)
	if err != nil && !errors.Is(err, ErrDiskFull) {
		t.Fatalf("checkSpace: %v", err)
	}
	if err := checkSpace(t.TempDir(), 1); err != nil {
		t.Fatalf("one byte: %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HF_TOKEN": "hf_env", "HF_TOKEN_PATH": tokenFile}, "hf_env"},
		{map[string]string{"HF_TOKEN_PATH": tokenFile}, "hf_fromfile"},
		{map[string]string{"HF_HOME": dir}, "hf_fromfile"},
		{map[string]string{"HF_HOME": filepath.Join(dir, "none")}, ""},
	}
	for _, tc := range cases {
		got := tokenFromEnv(func(k string) string { return tc.env[k] })
		if got != tc.want {
			t.Errorf("env %v: token %q, want %q", tc.env, got, tc.want)
		}
	}
	t.Setenv("HF_ENDPOINT", "https://hf-mirror.example/")
	t.Setenv("HF_TOKEN", "hf_x")
	if c := FromEnv(); c.Endpoint != "https://hf-mirror.example" || c.Token != "hf_x" {
		t.Errorf("FromEnv: %+v", c)
	}
}

func TestModelsDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg/data")
	if got := ModelsDir(); got != "/xdg/data/memd/models" {
		t.Errorf("ModelsDir %s", got)
	}
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if got := ModelsDir(); got != "/home/u/.local/share/memd/models" {
		t.Errorf("ModelsDir with a relative XDG_DATA_HOME: %s", got)
	}
	if got := LocalPath("/m", "a/b", "x/y.gguf"); got != "/m/a__b/x/y.gguf" {
		t.Errorf("LocalPath %s", got)
	}
}
