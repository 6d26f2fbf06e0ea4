package main

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// testService is a service whose paths need escaping in a unit file.
func testService(t *testing.T) service {
	t.Helper()
	home := t.TempDir()
	self, err := os.Executable() // any executable file stands in for memd's path
	if err != nil {
		t.Fatal(err)
	}
	return service{Memd: self, Data: filepath.Join(home, "my notes' data 100%"),
		Socket: filepath.Join(home, "run", "memd 50%.sock"), home: home}
}

// TestSystemdUnitsVerify: the rendered units pass systemd-analyze verify,
// which reads them as systemd will (and prints what it ignores).
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze here (Debian's systemd package has it)")
	}
	s := testService(t)
	units, err := s.units("linux")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, u := range units {
		p := filepath.Join(dir, filepath.Base(u.path))
		if err := os.WriteFile(p, []byte(u.text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	cmd := exec.Command(analyze, append([]string{"verify", "--user"}, files...)...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir(), "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// The paths survive systemd's quoting and specifiers.
	service := units[1].text
	for _, want := range []string{`--data "` + strings.ReplaceAll(s.Data, "%", "%%") + `"`, "Restart=on-failure", "Requires=memd.socket"} {
		if !strings.Contains(service, want) {
			t.Errorf("memd.service lacks %q:\n%s", want, service)
		}
	}
	if !strings.Contains(units[0].text, "ListenStream="+strings.ReplaceAll(s.Socket, "%", "%%")+"\n") {
		t.Errorf("memd.socket does not listen on %s:\n%s", s.Socket, units[0].text)
	}
}

// TestLaunchdAgent: the agent is a well-formed plist that keeps memd alive
// and logs under ~/Library/Logs/memd.
func TestLaunchdAgent(t *testing.T) {
	s := testService(t)
	units, err := s.units("darwin")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.home, "Library", "LaunchAgents", launchdLabel+".plist"); units[0].path != want {
		t.Errorf("agent at %s, want %s", units[0].path, want)
	}
	var strs []string
	d := xml.NewDecoder(strings.NewReader(units[0].text))
	var inString, keepAlive bool
	var lastKey string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plist is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inString = tok.Name.Local == "string" || tok.Name.Local == "key"
			if tok.Name.Local == "true" && lastKey == "KeepAlive" {
				keepAlive = true
			}
		case xml.CharData:
			if inString {
				strs = append(strs, string(tok))
				lastKey = string(tok)
			}
		case xml.EndElement:
			inString = false
		}
	}
	log := filepath.Join(s.home, "Library", "Logs", "memd", "memd.log")
	for _, want := range []string{s.Memd, s.Data, s.Socket, log} {
		if !slices.Contains(strs, want) {
			t.Errorf("the plist lacks %q: %q", want, strs)
		}
	}
	if !keepAlive {
		t.Errorf("the agent is not kept alive:\n%s", units[0].text)
	}
}

// TestServiceStatusNotInstalled: service status says the service is not
// installed, how to install it, where its log would be, and whether memd
// answers, before anything is installed.
func TestServiceStatusNotInstalled(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	sock := servertest.Socket(t, apitest.New())
	out, _, err := run(t, sock, "service", "status")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"service: not installed (memctl service install)", "memd: answering on " + sock} {
		if !strings.Contains(out, want) {
			t.Errorf("service status lacks %q:\n%s", want, out)
		}
	}
	if runtime.GOOS == "linux" && !strings.Contains(out, "log: journalctl --user -u memd") {
		t.Errorf("service status does not say where the log is:\n%s", out)
	}
}

// A half-installed service (one unit file of two) is what status and
// uninstall both call partly installed: status names the missing file,
// uninstall removes the other, and then status says not installed.
func TestServicePartlyInstalled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd's two unit files")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PATH", t.TempDir()) // no systemctl: uninstall only removes the files
	sock := servertest.Socket(t, apitest.New())
	dir := filepath.Join(home, ".config", "systemd", "user")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "memd.service"), []byte("[Service]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, sock, "service", "status")
	if err != nil || !strings.Contains(out, "service: partly installed, "+filepath.Join(dir, "memd.socket")+" missing") {
		t.Fatalf("status of a half-installed service: %v\n%s", err, out)
	}
	out, _, err = run(t, sock, "service", "uninstall")
	if err != nil || !strings.Contains(out, "removed "+filepath.Join(dir, "memd.service")) || strings.Contains(out, "removed "+filepath.Join(dir, "memd.socket")) {
		t.Fatalf("uninstall of a half-installed service: %v\n%s", err, out)
	}
	if out, _, _ := run(t, sock, "service", "status"); !strings.Contains(out, "service: not installed") {
		t.Fatalf("status after uninstall:\n%s", out)
	}
}

// TestPlistEscapes: a path with XML's special characters comes back whole
// from the plist, and one with a control character XML cannot hold is
// refused rather than written as a plist launchd would reject.
func TestPlistEscapes(t *testing.T) {
	s := testService(t)
	s.Data = filepath.Join(s.home, `a <b> & 'c' "d"`)
	units, err := s.units("darwin")
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(units[0].text))
	var strs []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plist is not well-formed: %v\n%s", err, units[0].text)
		}
		if c, ok := tok.(xml.CharData); ok {
			strs = append(strs, string(c))
		}
	}
	if !slices.Contains(strs, s.Data) {
		t.Errorf("the plist lacks %q: %q", s.Data, strs)
	}
	s.Data = filepath.Join(s.home, "bell\x07")
	if _, err := s.units("darwin"); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a path with a control character: %v, want a refusal", err)
	}
}
