package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// The runtime check looks where memd loads from: a lib_dir from memd's
// config counts, as it does for serving.
func TestCheckRuntimeFromConfig(t *testing.T) {
	t.Setenv("MEMD_LLAMA_LIB", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "libllama.v0.5.0.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := runtimeVerdict(""); c.Status != memd.CheckWarn {
		t.Fatalf("no runtime anywhere: %+v", c)
	}
	if c := runtimeVerdict(lib); c.Status != memd.CheckOK {
		t.Fatalf("lib_dir %s: %+v", lib, c)
	}
}

// The store check reads a store no daemon holds, and names a held one;
// it runs the memd binary, as memctl doctor does.
func TestCheckStore(t *testing.T) {
	data := tempDir(t)
	path := filepath.Join(data, "memd.db")
	if r := checkStoreBinary(t, data); r.Status != memd.CheckWarn {
		t.Fatalf("no store yet: %+v", r)
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := checkStoreBinary(t, data); r.Status != memd.CheckFail || r.Fix == "" {
		t.Fatalf("store held by another memd: %+v", r)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if r := checkStoreBinary(t, data); r.Status != memd.CheckOK || r.Bytes == 0 || r.Notes != 0 {
		t.Fatalf("an empty store: %+v", r)
	}
}

// checkStoreBinary runs `memd check store --json` on data.
func checkStoreBinary(t *testing.T, data string) memd.StoreReport {
	t.Helper()
	out, _ := exec.Command(filepath.Join(binDir, "memd"), "check", "store", "--json", "--data", data).Output()
	var r memd.CheckReport
	if err := json.Unmarshal(out, &r); err != nil || r.Store == nil {
		t.Fatalf("memd check store: %v: %s", err, out)
	}
	return *r.Store
}
