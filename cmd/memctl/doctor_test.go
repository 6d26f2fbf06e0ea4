package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
)

func TestDoctor(t *testing.T) {
	svc := apitest.New()
	svc.FolderList["/definitely/not/here"] = memd.FolderStatus{Path: "/definitely/not/here"}
	sock := fakeDaemon(t, svc)
	t.Setenv("MEMD_LLAMA_LIB", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	data := t.TempDir()
	os.Chmod(data, 0o755)
	a, out := &app{data: data, socket: sock}, []check(nil)
	out = a.diagnose(t.Context())
	got := map[string]string{}
	for _, c := range out {
		got[c.Name] = c.Status
		if c.Status != checkOK && c.Fix == "" {
			t.Errorf("%s is %s with no fix", c.Name, c.Status)
		}
	}
	want := map[string]string{"socket": checkOK, "data": checkWarn, "store": checkOK, "folders": checkWarn, "runtime": checkWarn}
	b, _ := json.Marshal(out)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s (%s)", k, got[k], v, b)
		}
	}
}

func TestDoctorNoDaemon(t *testing.T) {
	t.Setenv("MEMD_LLAMA_LIB", filepath.Join(t.TempDir(), "nope"))
	stdout, _, err := run(t, filepath.Join(t.TempDir(), "none.sock"), "doctor", "--json")
	if err == nil {
		t.Fatal("doctor with no daemon and a bad MEMD_LLAMA_LIB passed")
	}
	var r struct{ Checks []check }
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Checks) != 5 {
		t.Fatalf("%v: %s", err, stdout)
	}
	if r.Checks[0].Status != checkFail || r.Checks[4].Status != checkFail {
		t.Fatalf("%+v", r.Checks)
	}
}

// The runtime check looks where memd does: a lib_dir from memd's config
// counts, as it does for memd.
func TestDoctorRuntimeFromConfig(t *testing.T) {
	t.Setenv("MEMD_LLAMA_LIB", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "libllama.v0.5.0.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := checkRuntime(nil, ""); c.Status != checkWarn {
		t.Fatalf("no runtime anywhere: %+v", c)
	}
	if c := checkRuntime(nil, lib); c.Status != checkOK {
		t.Fatalf("lib_dir %s: %+v", lib, c)
	}
}

// A GPU build whose model runs on the CPU is a warning, from memd's own
// report of its build and device, whichever library memctl would find.
func TestDoctorGPUBuildOnCPU(t *testing.T) {
	t.Setenv("MEMD_LLAMA_LIB", "")
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "libllama.v0.5.0.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st := &memd.Status{Models: []memd.ModelStatus{
		{Role: "embedder", Loaded: true, Build: "cuda", Backend: "cuda"},
		{Role: "generator", Loaded: true, Build: "cuda", Backend: "cpu"},
	}}
	c := checkRuntime(st, lib)
	if c.Status != checkWarn || !strings.Contains(c.Detail, "the cuda build found no GPU, so the generator runs on the CPU") || c.Fix == "" {
		t.Fatalf("cuda build, generator on the CPU: %+v", c)
	}
	st.Models[1].Backend = "cuda"
	if c := checkRuntime(st, lib); c.Status != checkOK {
		t.Fatalf("both on the GPU: %+v", c)
	}
}
