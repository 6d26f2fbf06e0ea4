#!/usr/bin/env bash
# Template boilerplate through memd's real path (issue 15): the Dendron
# vault with a template's badges, query section and footer added to four
# notes in five (scripts/boilervault), indexed by a real memd; each
# question below is asked with `memctl recall --json -k 100`, and the rank
# of the note that answers it is printed: of its first chunk among all
# hits, and among notes (best chunk per note). Also prints the share of
# chunks that are boilerplate only.
# usage: scripts/boilerplate.sh [BIN] [WORKDIR]   (BIN: memd and memctl, default bin/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/bin}
work=${2:-$(mktemp -d /tmp/boilerplate.XXXX)}
vault=${VAULT:-$root/../shared/corpora/dendron/vault}
questions=(
  "what is the markdown preview|dendron.topic.preview.md"
  "what are pods|dendron.topic.pod.md"
  "what is lookup|dendron.topic.lookup.md"
  "backlinks panel|dendron.topic.links.backlink.md"
)
keep=$(printf '%s\n' "${questions[@]}" | cut -d'|' -f2 | paste -sd,)
if [ ! -d "$work/notes" ]; then
  (cd "$root" && go run ./scripts/boilervault -keep "$keep" make "$vault" "$work/notes")
fi
(cd "$root" && go run ./scripts/boilervault share "$work/notes")
rm -rf "$work/data"
. "$root/scripts/index-notes.sh"
index_notes "$bin" "$work" "$work/notes"
echo "indexed in $wall s wall, ${cpu} s CPU; store $(du -k "$work/data/memd.db" | cut -f1) KB"
for q in "${questions[@]}"; do
  text=${q%%|*} want=${q##*|}
  "$bin/memctl" --socket "$sock" recall --json -k 100 "$text" | python3 -c '
import json, os, sys
want, text = sys.argv[1], sys.argv[2]
hits = json.load(sys.stdin)["hits"]
notes, chunk_rank, note_rank = [], None, None
for i, h in enumerate(hits, 1):
    name = os.path.basename(h["path"])
    if name not in notes:
        notes.append(name)
    if name == want and chunk_rank is None:
        chunk_rank, note_rank = i, len(notes)
top = os.path.basename(hits[0]["path"]) + ":" + str(hits[0]["start_line"]) if hits else "-"
print("%-34r %-34s chunk rank %s, note rank %s; top hit %s" % (text, want, chunk_rank or ">100", note_rank or ">100", top))
' "$want" "$text"
done
