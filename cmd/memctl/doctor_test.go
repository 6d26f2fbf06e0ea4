package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// memdOnPath builds memd once and puts it first on PATH, for the checks
// doctor asks `memd check` to make.
func memdOnPath(t *testing.T) {
	t.Helper()
	memdBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "memctlbin")
		if err != nil {
			memdBuild.err = err
			return
		}
		memdBuild.dir = dir
		// go test puts the go that runs it first on PATH.
		out, err := exec.Command("go", "build", "-o", dir, "../memd").CombinedOutput()
		if err != nil {
			memdBuild.err = &buildError{err, string(out)}
		}
	})
	if memdBuild.err != nil {
		t.Fatalf("build memd: %v", memdBuild.err)
	}
	t.Setenv("PATH", memdBuild.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

var memdBuild struct {
	once sync.Once
	dir  string
	err  error
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func TestDoctor(t *testing.T) {
	memdOnPath(t)
	svc := apitest.New()
	svc.FolderList["/definitely/not/here"] = memd.FolderStatus{Path: "/definitely/not/here"}
	sock := servertest.Socket(t, svc)
	t.Setenv("MEMD_LLAMA_LIB", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	data := t.TempDir()
	os.Chmod(data, 0o755)
	a, out := &app{data: data, socket: sock}, []memd.Check(nil)
	out = a.diagnose(t.Context())
	got := map[string]string{}
	for _, c := range out {
		got[c.Name] = c.Status
		if c.Status != memd.CheckOK && c.Fix == "" {
			t.Errorf("%s is %s with no fix", c.Name, c.Status)
		}
	}
	want := map[string]string{"socket": memd.CheckOK, "data": memd.CheckWarn, "store": memd.CheckOK, "folders": memd.CheckWarn, "runtime": memd.CheckWarn}
	b, _ := json.Marshal(out)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s (%s)", k, got[k], v, b)
		}
	}
}

func TestDoctorNoDaemon(t *testing.T) {
	memdOnPath(t)
	t.Setenv("MEMD_LLAMA_LIB", filepath.Join(t.TempDir(), "nope"))
	stdout, _, err := run(t, filepath.Join(t.TempDir(), "none.sock"), "doctor", "--json")
	if err == nil {
		t.Fatal("doctor with no daemon and a bad MEMD_LLAMA_LIB passed")
	}
	var r struct{ Checks []memd.Check }
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Checks) != 5 {
		t.Fatalf("%v: %s", err, stdout)
	}
	if r.Checks[0].Status != memd.CheckFail || r.Checks[4].Status != memd.CheckFail || !strings.Contains(r.Checks[4].Detail, "nope") {
		t.Fatalf("%+v", r.Checks)
	}
	if r.Checks[2].Name != "store" || r.Checks[2].Status != memd.CheckWarn {
		t.Fatalf("store of an empty data folder: %+v", r.Checks[2])
	}
}

// Without a memd to run, the checks that need it fail and say how to get
// one.
func TestDoctorNoMemdBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	a := &app{data: t.TempDir(), socket: filepath.Join(t.TempDir(), "none.sock")}
	checks := a.diagnose(t.Context())
	for _, c := range checks {
		if (c.Name == "store" || c.Name == "runtime") && (c.Status != memd.CheckFail || !strings.Contains(c.Fix, "go install")) {
			t.Errorf("%+v", c)
		}
	}
}

// A GPU build whose model runs on the CPU is a warning, from memd's own
// report of its build and device, whichever library memd check found.
func TestDoctorGPUBuildOnCPU(t *testing.T) {
	found := memd.Check{Name: "runtime", Status: memd.CheckOK, Detail: "llama.cpp v0.5.0 (cuda) in /lib"}
	st := &memd.Status{Models: []memd.ModelStatus{
		{Role: "embedder", Loaded: true, Build: "cuda", Backend: "cuda"},
		{Role: "generator", Loaded: true, Build: "cuda", Backend: "cpu"},
	}}
	c := withLoadedModels(found, st)
	if c.Status != memd.CheckWarn || !strings.Contains(c.Detail, "the cuda build found no GPU, so the generator runs on the CPU") || c.Fix == "" {
		t.Fatalf("cuda build, generator on the CPU: %+v", c)
	}
	st.Models[1].Backend = "cuda"
	if c := withLoadedModels(found, st); c.Status != memd.CheckOK || !strings.HasSuffix(c.Detail, "memd has loaded: embedder, generator") {
		t.Fatalf("both on the GPU: %+v", c)
	}
}
