# recall-run.py QUERIES_JSONL MEMCTL SOCKET: a BEIR run file on stdout, each
# query asked with `memctl recall --json -k 100` of a running memd, the best
# chunk per note kept (a note's name without .md is its corpus id).
import json, os, subprocess, sys

queries, memctl, sock = sys.argv[1:4]
for line in open(queries):
    q = json.loads(line)
    out = subprocess.run([memctl, "--socket", sock, "recall", "--json", "-k", "100", q["text"]],
                         check=True, capture_output=True, text=True).stdout
    seen = set()
    for h in json.loads(out)["hits"]:
        doc = os.path.basename(h["path"])[:-3]
        if doc not in seen:
            seen.add(doc)
            print(f'{q["_id"]}\t{doc}\t{h["score"]}')
