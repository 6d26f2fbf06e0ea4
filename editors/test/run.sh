#!/usr/bin/env bash
# The editor tests: Debian's Neovim and Emacs, headless, with the plugin and
# the package of editors/, against a real memd indexing a copy of
# examples/vault, with a generated chat model (testmodel.WriteChatModel) on the
# real llama.cpp runtime. Needs nvim, emacs (with eglot: built in, or
# Debian's elpa-eglot), Go, and MEMD_LLAMA_LIB or the runtime `make test`
# fetches.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
: "${MEMD_LLAMA_LIB:=$HOME/.cache/memd/test-llama/linux-x64@3.22.1}"
if [ ! -d "$MEMD_LLAMA_LIB" ]; then
  echo "editors/test: no llama.cpp runtime in $MEMD_LLAMA_LIB; run scripts/fetch-llama.sh or set MEMD_LLAMA_LIB" >&2
  exit 1
fi
export MEMD_LLAMA_LIB

work=$(mktemp -d)
memd_pid=
cleanup() {
  [ -n "$memd_pid" ] && kill "$memd_pid" 2>/dev/null && wait "$memd_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/bin/" ./cmd/memd ./cmd/memctl
mkdir -p "$work/models"
model=$(go run ./editors/test/chatmodel "$work/models")
cp -r examples/vault "$work/vault"
# Chat's folder: the generated model spells most words byte by byte in a
# 512-token context, so its sources must be a few short notes.
mkdir -p "$work/short"
printf '# Tomatoes\n\nwater the tomatoes twice a week\n' >"$work/short/tomatoes.md"
printf '# Compost\n\nturn the compost heap each week\n' >"$work/short/compost.md"
export PATH="$work/bin:$PATH" MEMD_DATA="$work/data" MEMD_SOCKET="$work/memd.sock" \
  MEMD_CONFIG="$work/config.toml" MEMD_TEST_VAULT="$work/vault" MEMD_TEST_SHORT="$work/short"

memd --generator "$model" --threads 1 >"$work/memd.log" 2>&1 &
memd_pid=$!
for _ in $(seq 200); do [ -S "$MEMD_SOCKET" ] && break; sleep 0.05; done
memctl add --wait "$work/vault" >/dev/null
memctl add --wait "$work/short" >/dev/null
# The LSP tests run once memctl has an lsp command.
if memctl lsp --help >/dev/null 2>&1; then export MEMD_TEST_LSP=1; else
  echo "editors/test: memctl has no lsp command; the LSP cases are left out"; fi

status=0
echo "== Neovim $(nvim --version | head -1)"
nvim --headless -u NONE -i NONE -n \
  --cmd "set rtp^=$root/editors/nvim" \
  -c "runtime! plugin/memd.lua" \
  -c "luafile $root/editors/test/nvim_test.lua" || status=1

echo "== $(emacs --version | head -1)"
emacs --batch -Q -L "$root/editors/emacs" -l ert -l "$root/editors/test/memd-test.el" \
  -f ert-run-tests-batch-and-exit || status=1

if [ $status -ne 0 ]; then
  echo "--- memd's log" >&2
  tail -n 40 "$work/memd.log" >&2
fi
exit $status
