# fuse.py BM25_RUN DENSE_RUN QRELS...: nDCG@10 and Recall@100 of each run alone and of
# reciprocal rank fusion over a grid of k and vector weights (BM25 weight 1).
import sys, math, collections
def load_run(p):
    r = collections.defaultdict(list)
    for line in open(p):
        q, d, s = line.rstrip("\n").split("\t"); r[q].append((float(s), d))
    return {q: [d for _, d in sorted(v, key=lambda x: -x[0])] for q, v in r.items()}
def load_qrels(p):
    qr = collections.defaultdict(dict)
    for i, line in enumerate(open(p)):
        f = line.split()
        if i == 0 and not f[-1].isdigit(): continue
        q, d, rel = f[0], f[-2], int(f[-1])
        if rel > 0: qr[q][d] = rel
    return qr
def ndcg10(ranked, rel):
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0
def recall100(ranked, rel):
    return len(set(ranked[:100]) & set(rel)) / len(rel)
def rrf(a, b, k, wa, wb):
    s = collections.defaultdict(float)
    for i, d in enumerate(a): s[d] += wa / (k + i + 1)
    for i, d in enumerate(b): s[d] += wb / (k + i + 1)
    return [d for d, _ in sorted(s.items(), key=lambda x: -x[1])]
bm, de = load_run(sys.argv[1]), load_run(sys.argv[2])
for qp in sys.argv[3:]:
    qr = load_qrels(qp)
    qs = [q for q in qr if q in bm or q in de]
    def score(f):
        n = [ndcg10(f(q), qr[q]) for q in qs]; r = [recall100(f(q), qr[q]) for q in qs]
        return sum(n) / len(qs), sum(r) / len(qs)
    print(f"== {qp} ({len(qs)} queries)")
    print("bm25 alone   nDCG@10 %.4f R@100 %.4f" % score(lambda q: bm.get(q, [])))
    print("dense alone  nDCG@10 %.4f R@100 %.4f" % score(lambda q: de.get(q, [])))
    for k in (10, 20, 40, 60, 100):
        row = []
        for wb in (1.0, 0.75, 0.5, 0.25):
            n, r = score(lambda q: rrf(bm.get(q, []), de.get(q, []), k, 1.0, wb))
            row.append(f"1:{wb:<4} {n:.4f}/{r:.3f}")
        print(f"k={k:<3} " + "  ".join(row))
