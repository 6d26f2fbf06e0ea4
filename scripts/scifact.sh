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
. "$root/scripts/index-notes.sh"
index_notes "$bin" "$work" "$work/notes"
echo "indexed $(ls "$work/notes" | wc -l) notes in $wall s wall, ${cpu} s CPU, peak RSS ${rss} MB"
python3 "$root/scripts/recall-run.py" "$eval/scifact/queries.test.jsonl" "$bin/memctl" "$sock" >"$work/run.tsv"
python3 "$eval/score.py" "$eval/scifact/qrels.tsv" "$work/run.tsv"
