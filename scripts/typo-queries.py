# typo-queries.py QUERIES_JSONL [SEED]: the queries with typos, as BEIR
# queries JSONL on stdout, the same every run for a seed (default 15).
#
# A query's terms are its runs of ASCII letters. A third of them (rounded,
# at least one) are misspelled, chosen among those of four letters or more
# (shorter ones are mostly stop words); each gets one edit or, half the
# time, two: a letter deleted, inserted, replaced, or swapped with the
# next, at a random place. This is the typo'd SciFact query set of
# BENCHMARKS.md (issue 15).
import json, random, re, sys

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def edit(word, rng):
    i = rng.randrange(len(word))
    kind = rng.choice(["delete", "insert", "replace", "swap"])
    if kind == "delete" and len(word) > 1:
        return word[:i] + word[i + 1:]
    if kind == "insert":
        return word[:i] + rng.choice(LETTERS) + word[i:]
    if kind == "swap" and i + 1 < len(word) and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    others = LETTERS.replace(word[i].lower(), "")
    return word[:i] + rng.choice(others) + word[i + 1:]


def misspell(text, rng):
    words = list(re.finditer(r"[A-Za-z]+", text))
    eligible = [m for m in words if len(m.group()) >= 4]
    if not eligible:
        return text
    k = min(len(eligible), max(1, round(len(words) / 3)))
    chosen = sorted(rng.sample(eligible, k), key=lambda m: m.start())
    out, last = [], 0
    for m in chosen:
        w = m.group()
        for _ in range(rng.choice([1, 2])):
            w = edit(w, rng)
        out += [text[last:m.start()], w]
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def main():
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 15)
    for line in open(sys.argv[1]):
        q = json.loads(line)
        q["text"] = misspell(q["text"], rng)
        print(json.dumps(q))


if __name__ == "__main__":
    main()
