package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// run runs memctl with args against the socket and returns stdout, stderr
// and the error. It never starts a daemon.
func run(t *testing.T, sock string, args ...string) (string, string, error) {
	t.Helper()
	return runWith(t, sock, &app{}, args...)
}

// runWith is run with a's other fields (barOut) set by the test.
func runWith(t *testing.T, sock string, a *app, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a.out, a.errOut, a.noStart = &out, &errOut, true
	root := newRoot(a, append([]string{"--socket", sock, "--data", t.TempDir()}, args...))
	err := a.execute(context.Background(), root)
	return out.String(), errOut.String(), err
}

// TestConfigFileNamesTheSocket: memctl reads memd's config file, so a
// socket set there (and not on the command line) is the one it talks to.
func TestConfigFileNamesTheSocket(t *testing.T) {
	sock := servertest.Socket(t, apitest.New())
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("socket = \""+sock+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEMD_CONFIG", cfg)
	t.Setenv("MEMD_SOCKET", "")
	var out, errOut bytes.Buffer
	a := &app{out: &out, errOut: &errOut, noStart: true}
	root := newRoot(a, []string{"status", "--json"})
	if err := a.execute(context.Background(), root); err != nil {
		t.Fatalf("status with the socket from %s: %v (%s)", cfg, err, errOut.String())
	}
	if a.socket != sock {
		t.Errorf("memctl used socket %s, want %s from the config file", a.socket, sock)
	}
}

// Each entry of commands builds the command of its name.
func TestCommandsByName(t *testing.T) {
	for name, build := range commands {
		if got := build(&app{}).Name(); got != name {
			t.Errorf("commands[%q] builds %q", name, got)
		}
	}
}

// newRoot builds only the command a command line runs, past the root's
// flags and their values; help, completion and unknown names get every
// command.
func TestNewRootBuildsWhatRuns(t *testing.T) {
	all := slices.Sorted(maps.Keys(commands))
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"recall", "tomato"}, []string{"recall"}},
		{[]string{"--socket", "/run/s", "--json", "recall", "tomato"}, []string{"recall"}},
		{[]string{"--socket=/run/s", "-h", "status"}, []string{"status"}},
		{[]string{"--data", "status", "tags"}, []string{"tags"}},
		{[]string{"model", "list"}, []string{"model"}},
		{nil, all},
		{[]string{"--help"}, all},
		{[]string{"help", "recall"}, all},
		{[]string{"completion", "bash"}, all},
		{[]string{"__complete", "rec"}, all},
		{[]string{"recal"}, all},
		{[]string{"--json", "--", "recall"}, all},
	} {
		var got []string
		for _, c := range newRoot(&app{}, tc.args).Commands() {
			got = append(got, c.Name())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("memctl %s built %v, want %v", strings.Join(tc.args, " "), got, tc.want)
		}
	}
}

// What a person sees is the same with the one command built: its help,
// the whole list, completion scripts and a near miss's suggestion.
func TestHelpAndCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"recall", "--help"}, "memctl recall \"query\" [flags]"},
		{[]string{"--help"}, "tags        List the tags"},
		{[]string{"help", "status"}, "memctl status [flags]"},
		{[]string{"completion", "bash"}, "bash completion V2 for memctl"},
		{[]string{"__complete", "rec"}, "recall\tShow the chunks"},
	} {
		out, _, err := run(t, "/nonexistent.sock", tc.args...)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("memctl %s: %v, output without %q:\n%s", strings.Join(tc.args, " "), err, tc.want, out)
		}
	}
	if _, _, err := run(t, "/nonexistent.sock", "recal", "tomato"); err == nil || !strings.Contains(err.Error(), `Did you mean this?`) {
		t.Errorf("memctl recal: %v, want an unknown command error that suggests recall", err)
	}
}
