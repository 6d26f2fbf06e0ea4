// The official MCP TypeScript client (@modelcontextprotocol/sdk) against
// `memctl mcp` in front of a running memd, as an agent runs it: it lists
// the tools, recalls from a real folder, reads the note a hit names (as a
// tool and as a resource), and is refused a path outside the folders and a
// method memd does not serve. Run by scripts/node-clients.sh; MEMCTL is the
// memctl binary, MEMD_DATA and MEMD_SOCKET where memd is, NOTES the folder
// it indexes and OUTSIDE a note file outside it.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const { MEMCTL, MEMD_DATA, MEMD_SOCKET, NOTES, OUTSIDE } = process.env;
for (const [k, v] of Object.entries({ MEMCTL, MEMD_DATA, MEMD_SOCKET, NOTES, OUTSIDE })) {
  assert.ok(v, `${k} is not set`);
}

const client = new Client({ name: 'memd-ci', version: '1.0.0' });
await client.connect(new StdioClientTransport({
  command: MEMCTL, args: ['--data', MEMD_DATA, '--socket', MEMD_SOCKET, 'mcp'], stderr: 'inherit',
}));

async function step(name, fn) {
  const t0 = Date.now();
  await fn();
  console.log(`ok   mcp ${name} (${Date.now() - t0} ms)`);
}

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
let hit;

await step('capabilities and tools', async () => {
  const caps = client.getServerCapabilities();
  assert.ok(caps.tools && caps.resources, JSON.stringify(caps));
  assert.equal(caps.prompts, undefined);
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ['recall', 'read_note', 'chat', 'status', 'add_folder', 'forget']) {
    assert.ok(byName[name], `no ${name} tool among ${Object.keys(byName)}`);
  }
  const k = byName.recall.inputSchema.properties.k;
  assert.equal(k.minimum, 1, JSON.stringify(k));
  assert.equal(k.maximum, 1000, JSON.stringify(k));
});

await step('recall on a real folder', async () => {
  // callTool validates structuredContent against the tool's outputSchema.
  const r = await client.callTool({ name: 'recall', arguments: { query: 'water the tomatoes', folder: NOTES, k: 3 } });
  assert.ok(!r.isError, text(r));
  hit = r.structuredContent.hits[0];
  assert.match(hit.path, /garden\.md$/, JSON.stringify(r.structuredContent));
  assert.ok(text(r).includes(`${hit.path}:${hit.start_line}`), text(r));
});

await step('read_note on the hit', async () => {
  const r = await client.callTool({ name: 'read_note', arguments: { path: hit.path, start_line: hit.start_line, end_line: hit.end_line } });
  assert.ok(!r.isError, text(r));
  assert.equal(r.structuredContent.path, hit.path);
  assert.match(r.structuredContent.text, /twice a week/);
});

await step('the note as a resource', async () => {
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === `file://${hit.path}`), JSON.stringify(resources));
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'file:///{+path}');
  const r = await client.readResource({ uri: `file://${hit.path}` });
  assert.match(r.contents[0].text, /^# Tomatoes\n/);
});

await step('a clear error outside the folders', async () => {
  const r = await client.callTool({ name: 'read_note', arguments: { path: OUTSIDE } });
  assert.ok(r.isError, JSON.stringify(r));
  assert.match(text(r), /not inside any folder memd indexes/);
  const f = await client.callTool({ name: 'recall', arguments: { query: 'tomatoes', folder: '/no/such/folder' } });
  assert.ok(f.isError, JSON.stringify(f));
  assert.match(text(f), /is not a folder memd indexes/);
});

await step('-32601 for a method memd does not serve', async () => {
  await assert.rejects(client.request({ method: 'prompts/list' }, z.object({}).passthrough()),
    (e) => e instanceof McpError && e.code === -32601);
});

await client.close();
console.log('mcp client: all ok');
