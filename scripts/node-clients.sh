#!/usr/bin/env bash
# Real third-party clients against a real memd, for .ci/run: the openai and
# ws npm packages and the official MCP TypeScript client (pinned, installed
# into a temporary folder) and curl's SSE, over the unix socket and through
# `memctl mcp`, with generated models (a bigram generator with a known
# answer, and a small embedder). Needs go, node (18 or later), npm and curl.
# MEMD_LLAMA_LIB names the folder holding libllama; unset, the tests' pinned
# build is fetched (scripts/fetch-llama.sh) and used.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MEMD_LLAMA_LIB:-}" ]; then
	llama_dir="${LLAMA_DIR:-$HOME/.cache/memd/test-llama}"
	scripts/fetch-llama.sh "$llama_dir"
	export MEMD_LLAMA_LIB="$llama_dir/linux-x64@3.22.1"
fi
# openai 4.x takes an http.Agent (httpAgent), which reaches a unix socket;
# 5.x takes only fetch options (an undici dispatcher), and 6.x needs Node 22.
OPENAI_VERSION=4.104.0
WS_VERSION=8.18.3
MCP_SDK_VERSION=1.32.2

work=$(mktemp -d /tmp/memd-node.XXXXXX)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -o "$work/bin/" ./cmd/memd ./cmd/memctl
go run ./scripts/node-clients/writemodels -dir "$work" >"$work/models.txt"
mapfile -t models <"$work/models.txt"
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error \
	"openai@$OPENAI_VERSION" "ws@$WS_VERSION" "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" >/dev/null)
cp scripts/node-clients/clients.mjs scripts/node-clients/mcp.mjs "$work/"

mkdir -p "$work/notes"
printf '# Tomatoes\n\nwater the tomatoes twice a week\n' >"$work/notes/garden.md"
printf '# Compost\n\nturn the compost heap each week\n' >"$work/notes/compost.md"
printf '# Work\n\nthe report is due on Friday\n' >"$work/notes/work.md"
printf '# Outside\n\nnot in any folder memd indexes\n' >"$work/outside.md"

sock="$work/memd.sock"
memctl=("$work/bin/memctl" --data "$work/data" --socket "$sock")
"$work/bin/memd" --data "$work/data" --socket "$sock" --generator "${models[0]}" --embedder "${models[1]}" \
	--threads 1 >"$work/memd.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
"${memctl[@]}" add --wait "$work/notes" >/dev/null

# curl reads the SSE stream of /v1/chat: sources, then deltas, then done.
curl -sSN --fail --unix-socket "$sock" -H 'Content-Type: application/json' http://memd/v1/chat \
	-d '{"messages":[{"role":"user","content":"water tomatoes?"}],"stop":["."],"max_tokens":8,"stream":true}' >"$work/sse.txt"
events=$(grep '^event: ' "$work/sse.txt" | uniq | cut -d' ' -f2 | paste -sd' ')
if [ "$events" != "sources delta done" ] || ! grep -q '"citations":\[{"n":1' "$work/sse.txt"; then
	echo "curl SSE: events '$events', want 'sources delta done' with citation [1]:" >&2
	cat "$work/sse.txt" >&2
	exit 1
fi
echo "ok   curl --unix-socket SSE /v1/chat"

if ! (cd "$work" && MEMD_SOCKET="$sock" node clients.mjs); then
	echo "memd log:" >&2
	cat "$work/memd.log" >&2
	exit 1
fi

if ! (cd "$work" && MEMCTL="$work/bin/memctl" MEMD_DATA="$work/data" MEMD_SOCKET="$sock" NOTES="$work/notes" \
	OUTSIDE="$work/outside.md" node mcp.mjs); then
	echo "memd log:" >&2
	cat "$work/memd.log" >&2
	exit 1
fi
