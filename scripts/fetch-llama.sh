#!/usr/bin/env bash
# Fetch the pinned llama.cpp CPU builds the tests run against (v0.5.0 from
# 3.22.1, and v0.4.0 from 3.21.1, the Metal users' release) into DIR with
# npm pack, and print nothing but errors. Idempotent.
set -euo pipefail
dir=${1:?usage: fetch-llama.sh DIR}
mkdir -p "$dir"
for v in 3.22.1 3.21.1; do
  out="$dir/linux-x64@$v"
  [ -f "$out/.done" ] && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@node-llama-cpp/linux-x64@$v" >/dev/null)
  mkdir -p "$out"
  tar xzf "$tmp"/*.tgz -C "$out" --strip-components=3 package/bins/linux-x64
  rm -rf "$tmp"
  touch "$out/.done"
done
