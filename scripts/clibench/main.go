// Command clibench times commands end to end, side by side: each round runs
// every side's command once, in a shuffled order, and times it from the fork
// to the exit (the process start, its work and its output to a pipe that is
// drained). With -pid it also reads each side's daemon CPU time (utime +
// stime from /proc/PID/stat) before and after the run, so the CPU a daemon
// spends per command is measured too.
//
//	clibench -rounds 300 -queries q.txt \
//	    -side 'old=bin.old/memctl --socket old.sock recall -k 10' -pid old=1234 \
//	    -side 'new=bin.new/memctl --socket new.sock recall -k 10' -pid new=1235
//
// Each query (one per line of -queries) is appended to the command as its
// last argument, the same query for every side within a round.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type side struct {
	name  string
	argv  []string
	pid   int
	times []time.Duration
	cpu   []time.Duration // the command's own
	cpu0  float64
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	rounds := flag.Int("rounds", 200, "rounds; each runs every side once")
	queries := flag.String("queries", "", "file of queries, one per line, cycled through the rounds")
	var sides, pids multiFlag
	flag.Var(&sides, "side", "NAME=COMMAND (split on spaces); repeat for each side")
	flag.Var(&pids, "pid", "NAME=PID of the daemon that side talks to")
	flag.Parse()
	if len(sides) == 0 || *queries == "" {
		flag.Usage()
		os.Exit(2)
	}
	qs, err := readLines(*queries)
	if err != nil {
		fail(err)
	}
	var all []*side
	for _, s := range sides {
		name, cmd, ok := strings.Cut(s, "=")
		if !ok {
			fail(fmt.Errorf("-side %q: want NAME=COMMAND", s))
		}
		all = append(all, &side{name: name, argv: strings.Fields(cmd)})
	}
	for _, p := range pids {
		name, v, _ := strings.Cut(p, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			fail(fmt.Errorf("-pid %q: %v", p, err))
		}
		for _, s := range all {
			if s.name == name {
				s.pid = n
			}
		}
	}
	for _, s := range all {
		s.cpu0 = daemonCPU(s.pid)
	}
	for r := 0; r < *rounds; r++ {
		q := qs[r%len(qs)]
		for _, i := range rand.Perm(len(all)) {
			s := all[i]
			d, cpu, err := timeOne(append(slices.Clip(s.argv), q))
			if err != nil {
				fail(fmt.Errorf("%s: %v", s.name, err))
			}
			s.times, s.cpu = append(s.times, d), append(s.cpu, cpu)
		}
	}
	fmt.Printf("%-8s %8s %8s %8s %8s %12s %14s\n", "side", "p25 ms", "p50 ms", "p90 ms", "min ms", "CPU p50 ms", "daemon CPU/ms")
	for _, s := range all {
		slices.Sort(s.times)
		slices.Sort(s.cpu)
		cpu := "-"
		if s.pid > 0 {
			cpu = fmt.Sprintf("%.3f", (daemonCPU(s.pid)-s.cpu0)*1000/float64(len(s.times)))
		}
		fmt.Printf("%-8s %8.2f %8.2f %8.2f %8.2f %12.2f %14s\n", s.name, ms(pct(s.times, 25)), ms(pct(s.times, 50)), ms(pct(s.times, 90)),
			ms(s.times[0]), ms(pct(s.cpu, 50)), cpu)
	}
}

// timeOne runs argv and returns its wall time and its own CPU time.
func timeOne(argv []string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	wall = time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), err
}

// daemonCPU is the CPU time in seconds pid's live threads have run, 0
// without a pid.
func daemonCPU(pid int) float64 {
	if pid == 0 {
		return 0
	}
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(stats) == 0 {
		fail(fmt.Errorf("no threads of pid %d: is the daemon running?", pid))
	}
	var ns float64
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		// The first field is the time on a CPU, in nanoseconds.
		f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
		ns += f
	}
	return ns / 1e9
}

func pct(sorted []time.Duration, p int) time.Duration { return sorted[(len(sorted)-1)*p/100] }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s holds no queries", path)
	}
	return lines, sc.Err()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "clibench:", err)
	os.Exit(1)
}
