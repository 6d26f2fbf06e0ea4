#!/usr/bin/env bash
# SciFact through memd's real path: the corpus written as notes by
# beir_to_md.py, indexed by a real memd, each test query asked with
# `memctl recall --json -k 100`, the best chunk per note kept, and the run
# scored by score.py (nDCG@10, Recall@100). Prints indexing CPU time too.
# usage: scripts/scifact.sh [WORKDIR]   (needs bin/ from `make build`)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
eval=${EVAL:-$root/../shared/eval}
work=${1:-$(mktemp -d /tmp/scifact.XXXX)}
bin=$root/bin
mkdir -p "$work"
[ -d "$work/notes" ] || python3 "$eval/beir_to_md.py" "$eval/scifact/corpus.jsonl" "$work/notes" >/dev/null
sock=$work/memd.sock
MEMD_CPUPROFILE=${MEMD_CPUPROFILE:-} "$bin/memd" --data "$work/data" --socket "$sock" 2>"$work/memd.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
t0=$(date +%s.%N)
"$bin/memctl" --socket "$sock" add --wait "$work/notes" >/dev/null
t1=$(date +%s.%N)
cpu=$(awk '{print ($14+$15)/100}' /proc/$pid/stat)
rss=$(awk '/VmHWM/{print $2/1024}' /proc/$pid/status)
echo "indexed $(ls "$work/notes" | wc -l) notes in $(echo "$t1 - $t0" | bc) s wall, ${cpu} s CPU, peak RSS ${rss} MB"
python3 "$root/scripts/recall-run.py" "$eval/scifact/queries.test.jsonl" "$bin/memctl" "$sock" >"$work/run.tsv"
python3 "$eval/score.py" "$eval/scifact/qrels.tsv" "$work/run.tsv"
