package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memd-dev/memd"
)

// loadResult is what one load run measured.
type loadResult struct {
	clients   int
	ok, busy  int
	failed    int
	perSecond float64
	p50, p99  time.Duration
	peakRSS   int64 // bytes, memd's VmHWM
}

func (r loadResult) String() string {
	return fmt.Sprintf("%d clients: %.0f recalls/s, p50 %v, p99 %v, %d ok, %d refused (429), %d failed, memd peak RSS %d MB",
		r.clients, r.perSecond, r.p50, r.p99, r.ok, r.busy, r.failed, r.peakRSS>>20)
}

// recallLoad runs clients recalling on the daemon's socket for d, each
// waiting Retry-After when refused, and measures what it got. One recall
// in ten asks for MEMD_LOAD_BIG_K hits (default 1000), the rest for 10.
func recallLoad(t *testing.T, d *daemon, clients int, dur time.Duration, words []string) loadResult {
	t.Helper()
	bigK := envInt("MEMD_LOAD_BIG_K", 1000)
	tr := &http.Transport{MaxIdleConnsPerHost: clients, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "unix", d.socket)
	}}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var mu sync.Mutex
	res := loadResult{clients: clients}
	var lat []time.Duration
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for time.Now().Before(stop) {
				k := 10
				if rng.IntN(10) == 0 {
					k = bigK
				}
				body := fmt.Sprintf(`{"query":%q,"k":%d}`, words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))], k)
				start := time.Now()
				resp, err := hc.Post("http://memd"+memd.RouteRecall, "application/json", strings.NewReader(body))
				took := time.Since(start)
				if err != nil {
					mu.Lock()
					res.failed++
					mu.Unlock()
					continue
				}
				var wait time.Duration
				bufio.NewReader(resp.Body).WriteTo(discard{})
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case http.StatusOK:
					res.ok++
					lat = append(lat, took)
				case http.StatusTooManyRequests:
					res.busy++
					s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					wait = time.Duration(s) * time.Second
					if wait == 0 {
						res.failed++
					}
				default:
					res.failed++
				}
				mu.Unlock()
				time.Sleep(wait)
			}
		})
	}
	wg.Wait()
	res.perSecond = float64(res.ok) / dur.Seconds()
	slices.Sort(lat)
	if len(lat) > 0 {
		res.p50, res.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	res.peakRSS = peakRSS(t, d.cmd.Process.Pid)
	return res
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// peakRSS reads a process's peak resident set (VmHWM) from /proc.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to read memd's memory from: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestRecallUnderLoad is the bounded load test: many clients recall on the
// unix socket while memd indexes (a reindex every second), and memd must
// answer each with hits or a 429 that says when to come back, and keep
// its memory under 300 MB. MEMD_LOAD_CLIENTS (default 100) and
// MEMD_LOAD_SECONDS (default 3) size it; docs/reliability.md has the
// figures of 10 and 300 clients.
func TestRecallUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test is not short")
	}
	clients, secs := envInt("MEMD_LOAD_CLIENTS", 100), envInt("MEMD_LOAD_SECONDS", 3)
	vault := copyVault(t)
	dir := tempDir(t)
	d := startDaemon(t, dir+"/data", dir+"/memd.sock", strings.Fields(os.Getenv("MEMD_LOAD_FLAGS"))...)
	if _, err := d.client.AddFolder(context.Background(), vault); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, d.client, 2*time.Minute)
	var words []string
	for f := range noteFiles(t, vault) {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if len(w) > 4 && len(words) < 5000 {
				words = append(words, strings.Trim(w, ".,;:()[]#*`\"'"))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			d.client.Reindex(ctx, "")
			time.Sleep(time.Second)
		}
	}()
	r := recallLoad(t, d, clients, time.Duration(secs)*time.Second, words)
	cancel()
	t.Log(r)
	if r.failed > 0 || r.ok == 0 {
		t.Errorf("%d recalls failed (neither hits nor a 429 with Retry-After), %d answered", r.failed, r.ok)
	}
	// The race detector's shadow memory multiplies a process's RSS several
	// times, so the bound holds only for a plain build.
	if !raceBuild && r.peakRSS > 300<<20 {
		t.Errorf("memd's memory peaked at %d MB under %d clients, over 300 MB", r.peakRSS>>20, clients)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
