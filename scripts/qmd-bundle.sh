#!/usr/bin/env bash
# qmd-bundle.sh: packs qmd 2.8.3 and Node 22 (as scripts/qmd-compare.sh
# installs them) into one archive, for running qmd-compare.sh on a machine
# that reaches no registry, such as the lent benchmark host:
#
#   scripts/qmd-bundle.sh [OUT]        (default .qmdbundle/qmd.tar.xz)
#   # there:
#   mkdir -p /tmp/qmd && tar xJf qmd.tar.xz -C /tmp/qmd
#   QMD_CACHE=/tmp/qmd MEMD_BIN=DIR CORES=0,1 scripts/qmd-compare.sh 5 CORPUS...
#
# What `qmd collection add` never loads is left out, to keep the archive
# small (about 31 MB): node-llama-cpp's llama.cpp sources and every
# @node-llama-cpp binary (qmd's models are for embedding and reranking,
# which the BM25 index does not use), the tree-sitter grammars, TypeScript,
# better-sqlite3's sources and its prebuilt modules for other platforms,
# and Node's headers; Node's binary is stripped.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-.qmdbundle/qmd.tar.xz}")
cache=${QMD_CACHE:-$HOME/.cache/memd/qmd-compare}
source scripts/qmd-install.sh
qmd_install "$cache"
tmp=$(mktemp -d /tmp/qmd-bundle.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/node22/bin"
cp "$cache/node22/bin/node" "$tmp/node22/bin/node"
strip "$tmp/node22/bin/node"
cp -a "$cache/app" "$tmp/app"
m=$tmp/app/node_modules
rm -rf "$m/@node-llama-cpp" "$m/node-llama-cpp/llama" "$m"/tree-sitter-* "$m/typescript" \
	"$m/better-sqlite3/deps" "$m/better-sqlite3/src"
find "$m/better-sqlite3/prebuilds" -name '*.node' ! -name linux-x64.node -delete
mkdir -p "$(dirname "$out")"
tar cf - -C "$tmp" node22 app | xz -T0 -6 >"$out"
ls -la "$out"
