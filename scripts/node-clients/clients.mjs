// Real third-party clients against a running memd on its unix socket: the
// openai package (chat completions, streaming and not; embeddings; models)
// and the ws package (JSON-RPC on /v1/ws). Run by scripts/node-clients.sh;
// MEMD_SOCKET names the socket. Exits non-zero on the first failure.
import assert from 'node:assert/strict';
import http from 'node:http';
import OpenAI from 'openai';
import WebSocket from 'ws';

const socket = process.env.MEMD_SOCKET;
assert.ok(socket, 'MEMD_SOCKET is not set');
const answer = 'water is good[1]';

// The Agent's options reach net.createConnection, so every request of the
// client goes over the unix socket whatever the URL's host.
const client = new OpenAI({
  baseURL: 'http://memd/v1',
  apiKey: 'not-needed-on-the-socket',
  httpAgent: new http.Agent({ socketPath: socket, keepAlive: true }),
  maxRetries: 0,
});

async function step(name, fn) {
  const t0 = Date.now();
  await fn();
  console.log(`ok   ${name} (${Date.now() - t0} ms)`);
}

await step('chat.completions.create with memory', async () => {
  const r = await client.chat.completions.create({
    model: 'memd', max_tokens: 8, stop: ['.'],
    messages: [{ role: 'user', content: 'water tomatoes?' }],
  });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.choices[0].message.content.trim(), answer);
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
  assert.equal(r.memd.citations.length, 1, JSON.stringify(r.memd));
  assert.match(r.memd.citations[0].path, /garden\.md$/);
});

await step('chat.completions.create stream with usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'memd', max_tokens: 8, stop: ['.'], stream: true, stream_options: { include_usage: true },
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'water tomatoes?' }],
  });
  let text = '', chunks = 0, usage = null, finish = null, sources = null;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.memd?.sources) sources = chunk.memd.sources;
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      text += c.delta?.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.equal(text.trim(), answer);
  assert.equal(finish, 'stop');
  assert.ok(chunks >= 3 && usage && usage.total_tokens > 0, `chunks ${chunks} usage ${JSON.stringify(usage)}`);
  assert.ok(sources?.length > 0, 'the first chunk carries memd.sources');
});

await step('chat.completions.create plain, length', async () => {
  const r = await client.chat.completions.create({ model: 'bigram', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, 3);
  assert.equal(r.memd.citations, undefined);
});

await step('errors are APIError with the status', async () => {
  await assert.rejects(client.chat.completions.create({ model: 'memd', messages: [] }),
    (e) => e instanceof OpenAI.APIError && e.status === 400);
});

await step('embeddings.create (base64 default, and float)', async () => {
  const r = await client.embeddings.create({ model: 'embedder', input: ['tomatoes in the sun', 'compost'] });
  assert.equal(r.data.length, 2);
  const v = r.data[1].embedding;
  assert.ok(Array.isArray(v) && v.length > 0 && v.every(Number.isFinite));
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-3, `norm ${norm}`);
  const f = await client.embeddings.create({ model: 'embedder', input: 'compost', encoding_format: 'float' });
  assert.deepEqual(f.data[0].embedding.map((x) => x.toFixed(5)), v.map((x) => x.toFixed(5)));
  assert.ok(r.usage.prompt_tokens > 0);
});

await step('models.list', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.ok(ids.includes('memd') && ids.includes('bigram'), ids.join(','));
});

await step('ws: JSON-RPC recall, chat with notifications, errors, cancel', async () => {
  const ws = new WebSocket(`ws+unix://${socket}:/v1/ws`);
  await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
  const inbox = [];
  let wake = null;
  ws.on('message', (data) => { inbox.push(JSON.parse(data.toString())); wake?.(); });
  const next = async (pred) => {
    for (;;) {
      const i = inbox.findIndex(pred);
      if (i >= 0) return inbox.splice(i, 1)[0];
      await new Promise((ok, fail) => { wake = ok; setTimeout(() => fail(new Error('timed out waiting for a message')), 20000); });
    }
  };
  const send = (m) => ws.send(typeof m === 'string' ? m : JSON.stringify({ jsonrpc: '2.0', ...m }));

  send({ id: 1, method: 'recall', params: { query: 'compost' } });
  const rec = await next((m) => m.id === 1);
  assert.match(rec.result.hits[0].path, /compost\.md$/);

  send({ id: 'c1', method: 'chat', params: { messages: [{ role: 'user', content: 'water tomatoes?' }], stop: ['.'], max_tokens: 8 } });
  const res = await next((m) => m.id === 'c1');
  const notes = inbox.splice(0).filter((m) => m.params?.id === 'c1');
  assert.equal(notes[0].method, 'chat.sources');
  assert.ok(notes.slice(1).every((m) => m.method === 'chat.delta'));
  assert.equal(notes.slice(1).map((m) => m.params.text).join(''), res.result.message.content);
  assert.equal(res.result.message.content.trim(), answer);
  assert.equal(res.result.citations[0].n, 1);

  send('{"jsonrpc":"2.0","id":2,"method":');
  assert.equal((await next((m) => m.error && m.id === null)).error.code, -32700);
  send({ id: 3, method: 'status' });
  assert.ok((await next((m) => m.id === 3)).result.notes >= 3, 'the connection lives after a bad frame');

  send({ id: 'long', method: 'chat', params: { messages: [{ role: 'user', content: 'hi' }], memory: false, max_tokens: 400 } });
  await next((m) => m.method === 'chat.delta' && m.params.id === 'long');
  send({ id: 4, method: 'cancel', params: { id: 'long' } });
  const [cancelled, ack] = [await next((m) => m.id === 'long'), await next((m) => m.id === 4)];
  assert.equal(cancelled.error?.code, -32800, JSON.stringify(cancelled));
  assert.equal(ack.result.cancelled, true);
  ws.close();
});
console.log('node clients: all ok');
