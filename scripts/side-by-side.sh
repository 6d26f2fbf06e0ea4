#!/usr/bin/env bash
# side-by-side.sh: runs a pack from scripts/bench-pack.sh, old and new
# alternately, and prints every run and the medians.
#
#   scripts/side-by-side.sh PACK.tgz [RUNS]     (default 3 runs)
#
# Each run, for each side in alternating order, on a fresh data folder:
#   index   a fresh memd, `memctl add --wait CORPUS` for the Dendron vault
#           and for SciFact: the daemon's CPU (utime+stime), peak RSS
#           (VmHWM), RSS 8 s after the add returned (VmRSS, idle) and the
#           store file's size.
#   recall  both SciFact daemons up, clibench runs `memctl recall -k 10 Q`
#           for each test query on both sides in a shuffled order per round:
#           wall time from fork to exit, and the daemon's CPU per query.
#   bench   memory.test -test.bench 'Recall100k$|HybridRecall$' (in-daemon
#           recall p50/p99 at 100k chunks, BM25 and hybrid).
#   gen     pipeline.test -test.bench 'IndexGenerated/batch=2048$' (and
#           batch=default, the daemon's own growing batches, on a side
#           that has it) on GEN_NOTES generated notes (default 100000):
#           indexing CPU and MB of Markdown per CPU-second, the store
#           without the daemon.
#   gendaemon  as index, on GEN_NOTES generated notes (gencorpus): each
#           side's daemon and `memctl add --wait`, RUNS runs.
#   qmd     with QMD_CACHE naming an unpacked scripts/qmd-bundle.sh archive:
#           qmd-compare.sh on the Dendron vault and SciFact (RUNS runs),
#           new side only, and on GEN_NOTES generated notes (gencorpus,
#           one run).
# With taskset present, everything runs on two cores (CORES, default 0,1),
# the machine memd is measured on elsewhere. PARTS (default "index recall
# bench"; "gen", "gendaemon" and "qmd" are asked for by name) picks the parts; the recall part adds
# a side "floor" that runs clifloor (a Go program that prints a line: the
# start of any Go CLI); with PROFILES=DIR each indexing daemon writes its
# CPU profile to DIR/SIDE-CORPUS-RUN.prof.
set -euo pipefail
pack=$(realpath "$1") runs=${2:-3} here=$(realpath "$(dirname "$0")")
w=$(mktemp -d /tmp/side-by-side.XXXXXX)
trap 'pkill -f "$w/" 2>/dev/null || true' EXIT
tar xzf "$pack" -C "$w"
pin=()
command -v taskset >/dev/null && pin=(taskset -c "${CORES:-0,1}")
echo "old $(cat "$w/old/REV")  new $(cat "$w/new/REV")  $(nproc) cores, pinned to: ${pin[*]:-none}"

parts=${PARTS:-index recall bench}
has() { [[ " $parts " == *" $1 "* ]]; }
run=0

start() { # SIDE NAME → pid on stdout
	local d=$w/run/$1-$2 prof=
	rm -rf "$d" && mkdir -p "$d" && chmod 700 "$d"
	[ -n "${PROFILES:-}" ] && prof=$PROFILES/$1-$2-$run.prof
	MEMD_CPUPROFILE=$prof "${pin[@]}" "$w/$1/memd" --data "$d/data" --socket "$d/s.sock" >/dev/null 2>"$d/log" &
	local pid=$!
	for _ in $(seq 100); do [ -S "$d/s.sock" ] && break; sleep 0.05; done
	echo "$pid"
}

index() { # SIDE CORPUS → one line of figures; leaves the daemon running
	local side=$1 corpus=$2 d=$w/run/$1-$2 pid
	pid=$(start "$side" "$corpus")
	"${pin[@]}" "$w/$side/memctl" --socket "$d/s.sock" add --wait "$w/$corpus" >/dev/null
	local cpu hwm
	cpu=$(awk '{printf "%.2f", ($14+$15)/100}' "/proc/$pid/stat")
	hwm=$(awk '/VmHWM/{printf "%d", $2/1024}' "/proc/$pid/status")
	sleep 8
	printf "%-4s %-8s cpu %6s s  peak %4s MB  idle %4s MB  store %6.1f MB\n" "$side" "$corpus" "$cpu" "$hwm" \
		"$(awk '/VmRSS/{printf "%d", $2/1024}' "/proc/$pid/status")" \
		"$(du -b "$d/data/memd.db" | awk '{print $1/1048576}')"
	echo "$pid" >"$d/pid"
}

stopall() { pkill -TERM -f "$w/(old|new)/memd" 2>/dev/null || true; sleep 0.5; }

: >"$w/index.txt"
for r in $(seq "$runs"); do
	has index || break
	run=$r
	order="old new"; ((r % 2 == 0)) && order="new old"
	for side in $order; do
		for c in dendron scifact; do index "$side" "$c" | tee -a "$w/index.txt"; done
		stopall
	done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
has index && echo "medians of $runs runs:"
has index && for side in old new; do for c in dendron scifact; do
	l=$(grep "^$side *$c " "$w/index.txt")
	printf "%-4s %-8s cpu %s s  peak %s MB  idle %s MB  store %s MB\n" "$side" "$c" \
		"$(awk '{print $4}' <<<"$l" | median)" "$(awk '{print $7}' <<<"$l" | median)" \
		"$(awk '{print $10}' <<<"$l" | median)" "$(awk '{print $13}' <<<"$l" | median)"
done; done

has recall && for side in old new; do index "$side" scifact >/dev/null; done
has recall && "${pin[@]}" "$w/clibench" -rounds 300 -queries "$w/queries.txt" \
	-side "old=$w/old/memctl --socket $w/run/old-scifact/s.sock recall -k 10" -pid "old=$(cat "$w/run/old-scifact/pid")" \
	-side "new=$w/new/memctl --socket $w/run/new-scifact/s.sock recall -k 10" -pid "new=$(cat "$w/run/new-scifact/pid")" \
	-side "floor=$w/clifloor"
stopall

cd "$w"
has bench && for r in $(seq "$runs"); do for side in old new; do
	echo "== $side memory.test run $r"
	"${pin[@]}" "$w/$side/memory.test" -test.run '^$' -test.bench 'Recall100k$|HybridRecall$' -test.benchtime 2000x -test.benchmem |
		grep ^Benchmark
done; done
has gen && for r in $(seq "$runs"); do for side in old new; do
	echo "== $side pipeline.test run $r, ${GEN_NOTES:-100000} notes"
	MEMD_BENCH_NOTES=${GEN_NOTES:-100000} "${pin[@]}" "$w/$side/pipeline.test" -test.run '^$' \
		-test.bench 'IndexGenerated/batch=(2048|default)$' -test.benchtime 1x | grep ^Benchmark
done; done
if has gendaemon; then
	[ -d "$w/generated" ] || "$w/gencorpus" -notes "${GEN_NOTES:-100000}" "$w/generated" >/dev/null
	for r in $(seq "$runs"); do
		order="old new"; ((r % 2 == 0)) && order="new old"
		for side in $order; do index "$side" generated; stopall; done
	done
fi
if has qmd; then
	compare=$here/qmd-compare.sh
	MEMD_BIN=$w/new CORES=${CORES:-0,1} "$compare" "$runs" "$w/dendron" "$w/scifact"
	[ -d "$w/generated" ] || "$w/gencorpus" -notes "${GEN_NOTES:-100000}" "$w/generated"
	MEMD_BIN=$w/new CORES=${CORES:-0,1} "$compare" 1 "$w/generated"
fi
true
