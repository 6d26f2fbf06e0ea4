package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/store"
)

func TestBoundBytesCutsBatchBySize(t *testing.T) {
	dir := t.TempDir()
	var jobs []store.Job
	for i, size := range []int{400, 400, 400, 400} {
		p := filepath.Join(dir, string(rune('a'+i))+".md")
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, store.Job{Path: p})
	}
	jobs = append(jobs, store.Job{Path: filepath.Join(dir, "gone.md")})
	cases := []struct {
		limit int64
		want  int
	}{{100, 1}, {800, 2}, {1000, 2}, {1600, 5}, {1 << 20, 5}}
	for _, c := range cases {
		if got := len(boundBytes(jobs, c.limit)); got != c.want {
			t.Errorf("limit %d: kept %d jobs, want %d", c.limit, got, c.want)
		}
	}
}
