package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd/api"
)

// binDir holds the memd and memctl binaries TestMain builds once, from
// builtCommit ("" outside a git checkout).
var binDir, builtCommit string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "memdbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if raceBuild {
		args = append(args, "-race")
	}
	// As the Makefile does: Go records no commit for a build from a git
	// worktree or under -buildvcs=false.
	if builtCommit = gitHead(); builtCommit != "" {
		args = append(args, "-ldflags", "-X github.com/memd-dev/memd/internal/buildinfo.LinkCommit="+builtCommit)
	}
	cmd := exec.Command(goTool(), append(args, ".", "../memctl")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build memd and memctl for the integration tests:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// gitHead is the commit the repository is at, "" outside a git checkout.
func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// goTool is the go command that runs these tests, else the one on PATH.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); !gone(p) {
		return p
	}
	return "go"
}

// tempDir is a fresh private folder with a short path: socket paths must
// stay under 104 bytes, which t.TempDir's long names can break.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "memd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// vaultSource is the dendron sample vault beside the repository.
func vaultSource(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatalf("no go.mod above %s", wd)
		}
		root = parent
	}
	vault := filepath.Join(root, "..", "shared", "corpora", "dendron", "vault")
	if _, err := os.Stat(vault); err != nil {
		t.Skipf("the dendron sample vault is not at %s (../shared/corpora/dendron/vault from the repository root): %v", vault, err)
	}
	return vault
}

// copyVault copies the sample vault into a fresh folder and returns it.
func copyVault(t testing.TB) string {
	t.Helper()
	src := vaultSource(t)
	dst := filepath.Join(tempDir(t), "vault")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatalf("copy vault: %v", err)
	}
	return dst
}

// noteFiles lists the files under dir that memd indexes: Markdown, Org and
// text files outside dot-folders.
func noteFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".md", ".markdown", ".org", ".txt":
			if d.Type().IsRegular() {
				files[p] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// daemon is a memd process started by a test.
type daemon struct {
	t      testing.TB
	cmd    *exec.Cmd
	data   string
	socket string
	log    *syncBuffer
	exited chan struct{}
	err    error // Wait's result, once exited is closed
	client *api.Client
}

// startDaemon starts memd on data and socket and waits until it answers.
func startDaemon(t testing.TB, data, socket string, extra ...string) *daemon {
	t.Helper()
	d := launch(t, data, socket, extra...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := d.client.Status(ctx)
		cancel()
		if err == nil {
			return d
		}
		select {
		case <-d.exited:
			t.Fatalf("memd exited at start (%v):\n%s", d.err, d.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("memd did not answer within 30s: %v\n%s", err, d.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// launch starts memd without waiting for it.
func launch(t testing.TB, data, socket string, extra ...string) *daemon {
	t.Helper()
	d := &daemon{t: t, data: data, socket: socket, log: new(syncBuffer), exited: make(chan struct{}),
		client: api.NewClient(socket)}
	d.cmd = exec.Command(filepath.Join(binDir, "memd"), append([]string{"--data", data, "--socket", socket}, extra...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	d.cmd.Env = append(os.Environ(), "MEMD_DATA=", "MEMD_SOCKET=")
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		d.client.Close()
		select {
		case <-d.exited:
		default:
			d.cmd.Process.Kill()
			<-d.exited
		}
		if strings.Contains(d.log.String(), "WARNING: DATA RACE") {
			t.Errorf("the race detector caught memd:\n%s", d.log)
		} else if t.Failed() {
			t.Logf("memd log:\n%s", d.log)
		}
	})
	return d
}

// stop sends SIGTERM and returns the exit error, failing if memd takes
// more than 20s.
func (d *daemon) stop() error {
	d.t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		return d.err
	case <-time.After(20 * time.Second):
		d.t.Fatalf("memd did not stop within 20s of SIGTERM:\n%s", d.log)
		return nil
	}
}

// kill sends SIGKILL and waits for the process to go.
func (d *daemon) kill() {
	d.cmd.Process.Kill()
	<-d.exited
}

// memctl runs the memctl binary against data and socket.
func memctl(t *testing.T, data, socket string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "memctl"), append([]string{"--data", data, "--socket", socket}, args...)...)
	cmd.Env = append(os.Environ(), "MEMD_DATA=", "MEMD_SOCKET=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("memctl %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), err
}

// eventually calls cond until it reports true or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after %v: %s", what, timeout, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitIdle waits for the daemon to finish the indexing work it knows of.
func waitIdle(t testing.TB, c *api.Client, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatalf("wait for idle: %v", err)
	}
}

// gone reports whether nothing is at path.
func gone(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// syncBuffer is a bytes.Buffer that a process writes to while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
