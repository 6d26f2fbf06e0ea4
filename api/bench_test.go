//go:build linux || darwin

package api_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// tenHits answers every recall with ten hits of 400 bytes of text, about
// the size of memctl recall's answer on SciFact.
func tenHits(context.Context, memd.RecallRequest) (memd.RecallResult, error) {
	res := memd.RecallResult{}
	for i := range 10 {
		res.Hits = append(res.Hits, memd.Hit{
			Path: filepath.Join("/notes/scifact", strings.Repeat("7", 8+i%3)+".md"), StartLine: 1, EndLine: 3,
			Title: "Induction of stem-like cells with malignant properties", Text: strings.Repeat("carbon nanotubes ", 24), Score: 0.9,
		})
	}
	return res, nil
}

// BenchmarkLongLivedClient is a long-lived client's loop of recalls (the
// MCP server's): one Client, b.N requests against memd's server. cpu-ns/op
// is the process's CPU (client and server) per request.
func BenchmarkLongLivedClient(b *testing.B) {
	svc := apitest.New()
	svc.RecallHook = tenHits
	sock := servertest.Socket(b, svc)
	c := api.NewClient(sock)
	defer c.Close()
	ctx := context.Background()
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for range b.N {
		res, err := c.Recall(ctx, memd.RecallRequest{Query: "carbon nanotubes", K: 10})
		if err != nil || len(res.Hits) != 10 {
			b.Fatalf("recall: %d hits, %v", len(res.Hits), err)
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime) + syscall.TimevalToNsec(after.Stime) -
		syscall.TimevalToNsec(before.Utime) - syscall.TimevalToNsec(before.Stime))
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
