package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
)

// smallVault writes three notes into a fresh folder.
func smallVault(t *testing.T, dir string) string {
	t.Helper()
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(filepath.Join(notes, "garden"), 0o700)
	for name, text := range map[string]string{
		"garden/tomatoes.md": "# Tomatoes\n\nwater twice a week\n",
		"compost.md":         "# Compost\n\nturn it weekly\n",
		"work.md":            "# Work\n\nthe report is due Friday\n",
	} {
		os.WriteFile(filepath.Join(notes, name), []byte(text), 0o600)
	}
	return notes
}

// TestReAddReportsTheFolder: adding a folder that is registered, watched
// and indexed reports it as it is (its notes, watching), in JSON and in
// words, instead of "notes":0,"watching":false and "indexes it in the
// background" as if it were new.
func TestReAddReportsTheFolder(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	startDaemon(t, data, sock)
	notes := smallVault(t, dir)
	if _, err := memctl(t, data, sock, "add", "--wait", notes); err != nil {
		t.Fatal(err)
	}
	out, err := memctl(t, data, sock, "--json", "add", notes)
	if err != nil {
		t.Fatal(err)
	}
	var f memd.FolderStatus
	if err := json.Unmarshal([]byte(out), &f); err != nil || f.Notes != 3 || !f.Watching {
		t.Errorf("re-add --json: %v %s", err, out)
	}
	out, err = memctl(t, data, sock, "add", notes)
	if err != nil || out != notes+" was already registered: 3 notes, watching\n" {
		t.Errorf("re-add: %v %q", err, out)
	}
}

// TestErrorsSayItOnce: a failed forget, rm or add says what is wrong in one
// sentence that names the path once, with no kind words stuttering before
// it ("not found: forget x: store: not found: …"), and an overlap names
// the right direction.
func TestErrorsSayItOnce(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	startDaemon(t, data, sock)
	notes := smallVault(t, dir)
	if _, err := memctl(t, data, sock, "add", "--wait", notes); err != nil {
		t.Fatal(err)
	}
	gone, outside := filepath.Join(notes, "gone.md"), filepath.Join(dir, "elsewhere.md")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"forget", gone}, "memctl: " + gone + " is not indexed and there is no such file"},
		{[]string{"forget", outside}, "memctl: " + outside + " is in no folder memd indexes; memctl status lists them"},
		{[]string{"rm", dir}, "memctl: " + dir + " is not a registered folder; memctl status lists them"},
		{[]string{"add", filepath.Join(notes, "garden")}, "memctl: " + filepath.Join(notes, "garden") + " is inside " + notes + ", which is already registered"},
		{[]string{"add", dir}, "memctl: " + dir + " contains " + notes + ", which is already registered"},
	} {
		_, err := memctl(t, data, sock, tc.args...)
		if err == nil {
			t.Errorf("memctl %v succeeded", tc.args)
			continue
		}
		msg := err.Error()[strings.Index(err.Error(), "\n")+1:] // memctl's stderr
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("memctl %v said\n%s\nwant it to start\n%s", tc.args, msg, tc.want)
		}
		for _, stutter := range []string{"not found:", "unknown folder:", "store:", "not a directory:"} {
			if strings.Contains(msg, stutter) {
				t.Errorf("memctl %v stutters %q: %s", tc.args, stutter, msg)
			}
		}
	}
}

// TestChatBlamesTheRuntime: with a generator configured but no llama.cpp
// runtime, chat says the generator did not load and why (the runtime), not
// that none is set: setting it again would not help.
func TestChatBlamesTheRuntime(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	model := filepath.Join(dir, "chat.gguf")
	os.WriteFile(model, []byte("a model file memd never gets to read"), 0o600)
	noRuntime := filepath.Join(dir, "no-runtime")
	os.MkdirAll(noRuntime, 0o700)
	t.Setenv("MEMD_LLAMA_LIB", "")
	startDaemon(t, data, sock, "--generator", model, "--lib-dir", noRuntime)
	_, err := memctl(t, data, sock, "chat", "what about tomatoes?")
	if err == nil {
		t.Fatal("chat answered with no runtime")
	}
	msg := err.Error()[strings.Index(err.Error(), "\n")+1:]
	for _, want := range []string{"memctl: chat needs the generator " + model + ", which did not load: no llama.cpp runtime", "memd runtime install"} {
		if !strings.Contains(msg, want) {
			t.Errorf("chat said\n%s\nwithout %q", msg, want)
		}
	}
	if strings.Contains(msg, "model set generator") || strings.Contains(msg, "unavailable:") {
		t.Errorf("chat blames the generator setting or stutters:\n%s", msg)
	}
}

// TestStatusListsSkips: plain memctl status lists the skipped files and
// why, as the README promises, not only how many there are.
func TestStatusListsSkips(t *testing.T) {
	dir := tempDir(t)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	startDaemon(t, data, sock)
	notes := smallVault(t, dir)
	binary := filepath.Join(notes, "scan.md")
	os.WriteFile(binary, []byte("\x00\x01\x02\xff\xfe not text"), 0o600)
	if _, err := memctl(t, data, sock, "add", "--wait", notes); err != nil {
		t.Fatal(err)
	}
	out, err := memctl(t, data, sock, "status")
	if err != nil || !strings.Contains(out, "1 skipped") || !strings.Contains(out, "\nskipped "+binary+": ") {
		t.Errorf("status: %v\n%s", err, out)
	}
}
