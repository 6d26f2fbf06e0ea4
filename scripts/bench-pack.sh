#!/usr/bin/env bash
# bench-pack.sh: builds a side-by-side benchmark pack of two revisions, for
# scripts/side-by-side.sh to run here or on another x86-64 Linux machine.
#
#   scripts/bench-pack.sh OLDREV [PACKDIR]      (default PACKDIR .bench)
#
# "old" is OLDREV (built from a temporary worktree), "new" is the working
# tree as it is. Each side gets memd, memctl and the test binaries of
# memory/ (its recall benchmarks) and pipeline/ (its generated corpus's
# indexing benchmark); the pack also holds clibench, clifloor (a Go
# program that prints one line), gencorpus (that generated corpus, written
# out for qmd), the SciFact notes and test queries and the
# Dendron vault from ../shared, all in one PACKDIR/pack.tgz.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }
old=$1 pack=$(realpath -m "${2:-.bench}")
shared=${SHARED:-../shared}
tmp=$(mktemp -d /tmp/bench-pack.XXXXXX)
trap 'git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/src" "$old"
build() { # SRC OUT
	(cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$2/" ./cmd/memd ./cmd/memctl &&
		CGO_ENABLED=0 go test -c -trimpath -ldflags '-s -w' -o "$2/memory.test" ./memory &&
		CGO_ENABLED=0 go test -c -trimpath -ldflags '-s -w' -o "$2/pipeline.test" ./pipeline)
}
build "$tmp/src" "$tmp/p/old"
build "$PWD" "$tmp/p/new"
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/p/" ./scripts/clibench ./scripts/clifloor ./scripts/gencorpus
python3 "$shared/eval/beir_to_md.py" "$shared/eval/scifact/corpus.jsonl" "$tmp/p/scifact" >/dev/null
python3 -c 'import json,sys; [print(json.loads(l)["text"]) for l in open(sys.argv[1])]' \
	"$shared/eval/scifact/queries.test.jsonl" >"$tmp/p/queries.txt"
cp -r "$shared/corpora/dendron" "$tmp/p/dendron"
git rev-parse "$old" >"$tmp/p/old/REV"
echo "$(git rev-parse HEAD)$(git diff --quiet || echo +dirty)" >"$tmp/p/new/REV"
mkdir -p "$pack"
tar czf "$pack/pack.tgz" -C "$tmp/p" .
ls -la "$pack/pack.tgz"
