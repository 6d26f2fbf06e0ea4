#!/usr/bin/env bash
# Fetch what the tests run against, with npm pack, and print nothing but
# errors. Idempotent.
#
#   fetch-llama.sh DIR       the pinned llama.cpp CPU builds (v0.5.0 from
#                            3.22.1, and v0.4.0 from 3.21.1, the Metal users'
#                            release) into DIR/linux-x64@VERSION
#   fetch-llama.sh -src DIR  the llama.cpp source of v0.5.0 (the git bundle
#                            node-llama-cpp@3.22.1 ships: vocabulary GGUFs of
#                            real models, their chat templates, the
#                            architectures' source) cloned into DIR/llama.cpp
set -euo pipefail
nlc=3.22.1

fetch_source() {
	local dir=$1 out=$1/llama.cpp
	[ -f "$out/.done" ] && return
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && npm pack --silent "node-llama-cpp@$nlc" >/dev/null)
	tar xzf "$tmp/node-llama-cpp-$nlc.tgz" -C "$tmp" package/llama/gitRelease.bundle
	rm -rf "$out" && mkdir -p "$dir"
	git clone -q "$tmp/package/llama/gitRelease.bundle" "$out" 2>/dev/null
	rm -rf "$tmp"
	touch "$out/.done"
}

fetch_runtime() {
	local dir=$1
	mkdir -p "$dir"
	for v in 3.22.1 3.21.1; do
		local out="$dir/linux-x64@$v"
		[ -f "$out/.done" ] && continue
		local tmp
		tmp=$(mktemp -d)
		(cd "$tmp" && npm pack --silent "@node-llama-cpp/linux-x64@$v" >/dev/null)
		mkdir -p "$out"
		tar xzf "$tmp"/*.tgz -C "$out" --strip-components=3 package/bins/linux-x64
		rm -rf "$tmp"
		touch "$out/.done"
	done
}

if [ "${1:-}" = -src ]; then
	fetch_source "${2:?usage: fetch-llama.sh -src DIR}"
else
	fetch_runtime "${1:?usage: fetch-llama.sh [-src] DIR}"
fi
