// Drives one TypeScript MCP client for the Go interop tests.
//
//   node driver.mjs
//
// The Go test writes one JSON command per line on standard input,
// {"id":1,"op":"callTool","name":"echo","args":{...}}, and reads one line
// per answer, {"id":1,"result":...} or {"id":1,"error":{"code":..,"message":..}},
// plus {"event":{...}} for each notification the client hands to its
// handlers and {"frame":{"sent":true,"msg":{...}}} for each JSON-RPC
// message its transport carries. The first command is "connect", which
// names the library: "v2" (@modelcontextprotocol/client) or "v1"
// (@modelcontextprotocol/sdk).
import { createInterface } from 'node:readline';

const SAMPLING_ANSWER = 'Bonjour';
const ROOT_URI = 'file:///tmp/project';

function write(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

let client;
let transport;
let lib;
let negotiated = { version: '', server: '' };
let listen; // the 2026-07-28 listen stream (v2), with the resources it covers
const subscribed = new Set();
const controllers = new Map(); // command id -> AbortController
let stderrText = '';
let logLevel; // v2 on 2026-07-28: the level each request carries

function elicitAnswer(params) {
  if (params.mode === 'url') return { action: 'accept' };
  const content = {};
  for (const [name, p] of Object.entries(params.requestedSchema?.properties ?? {})) {
    if (p.type === 'boolean') content[name] = true;
    else if (p.type === 'integer' || p.type === 'number') content[name] = 1;
    else content[name] = p.format === 'email' ? 'ada@example.com' : 'Ada';
  }
  return { action: 'accept', content };
}

// tap records every message the transport sends and delivers.
function tap(t) {
  const send = t.send.bind(t);
  t.send = (msg, opts) => {
    write({ frame: { sent: true, msg } });
    return send(msg, opts);
  };
  let handler;
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    get() {
      return handler;
    },
    set(h) {
      handler = h
        ? (msg, extra) => {
            write({ frame: { sent: false, msg } });
            return h(msg, extra);
          }
        : h;
    },
  });
}

async function connect(cmd) {
  lib = cmd.lib;
  const capabilities = {
    roots: { listChanged: true },
    sampling: {},
    elicitation: { form: {}, url: {} },
  };
  const info = { name: `interop-ts-${lib}`, version: '1.0.0' };
  let mod, stdioMod, httpMod, types;
  if (lib === 'v2') {
    mod = await import('@modelcontextprotocol/client');
    stdioMod = await import('@modelcontextprotocol/client/stdio');
    httpMod = mod;
  } else {
    mod = await import('@modelcontextprotocol/sdk/client/index.js');
    stdioMod = await import('@modelcontextprotocol/sdk/client/stdio.js');
    httpMod = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    types = await import('@modelcontextprotocol/sdk/types.js');
  }
  const options = { capabilities };
  if (lib === 'v2') {
    if (cmd.mode === '2025-06-18') options.supportedProtocolVersions = ['2025-06-18'];
    if (cmd.mode === 'auto') options.versionNegotiation = { mode: 'auto' };
  }
  client = new mod.Client(info, options);
  const onRequest = (method, schema, fn) =>
    lib === 'v2' ? client.setRequestHandler(method, fn) : client.setRequestHandler(schema, fn);
  const onNotification = (method, schema, fn) =>
    lib === 'v2' ? client.setNotificationHandler(method, fn) : client.setNotificationHandler(schema, fn);
  onRequest('elicitation/create', types?.ElicitRequestSchema, async (req) => elicitAnswer(req.params));
  onRequest('sampling/createMessage', types?.CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'interop-model',
    content: { type: 'text', text: SAMPLING_ANSWER },
  }));
  onRequest('roots/list', types?.ListRootsRequestSchema, async () => ({ roots: [{ uri: ROOT_URI, name: 'project' }] }));
  onNotification('notifications/message', types?.LoggingMessageNotificationSchema, (n) =>
    write({ event: { method: n.method, level: n.params.level, data: JSON.stringify(n.params.data) } }),
  );
  onNotification('notifications/tools/list_changed', types?.ToolListChangedNotificationSchema, (n) =>
    write({ event: { method: n.method } }),
  );
  onNotification('notifications/resources/updated', types?.ResourceUpdatedNotificationSchema, (n) =>
    write({ event: { method: n.method, uri: n.params.uri } }),
  );
  if (cmd.command) {
    transport = new stdioMod.StdioClientTransport({ command: cmd.command, args: cmd.args ?? [], stderr: 'pipe' });
    transport.stderr?.on('data', (b) => (stderrText += b.toString()));
  } else {
    transport = new httpMod.StreamableHTTPClientTransport(new URL(cmd.url));
  }
  tap(transport);
  await client.connect(transport);
  // v2 keeps the negotiated version; v1 hands it to the HTTP transport
  // only, and over stdio negotiates the one version it offers.
  negotiated.version = client._negotiatedProtocolVersion ?? transport.protocolVersion ?? '2025-11-25';
  negotiated.server = client.getServerVersion()?.name ?? '';
  if (isModern()) await relisten();
  return negotiated;
}

function isModern() {
  return negotiated.version === '2026-07-28';
}

// relisten (re)opens the 2026-07-28 listen stream with tool list changes
// and the subscribed resources, as an application on that era does.
async function relisten() {
  if (!client.getServerCapabilities()?.tools?.listChanged) return;
  if (listen) await listen.close();
  listen = await client.listen({ toolsListChanged: true, resourceSubscriptions: [...subscribed] });
}

function params(cursor) {
  return cursor ? { cursor } : {};
}

async function page(method, key, name, cursor) {
  // A raw request returns one page, whichever library: v2's list helpers
  // walk every page when no cursor is given.
  const res = await client.request({ method, params: params(cursor) }, lib === 'v1' ? listSchema(method) : undefined);
  return { names: res[key].map((x) => x[name]), next: res.nextCursor ?? '' };
}

let v1types;
function listSchema(method) {
  return {
    'tools/list': v1types.ListToolsResultSchema,
    'resources/list': v1types.ListResourcesResultSchema,
    'resources/templates/list': v1types.ListResourceTemplatesResultSchema,
    'prompts/list': v1types.ListPromptsResultSchema,
  }[method];
}

async function allTools() {
  if (lib === 'v2') return (await client.listTools()).tools.map((t) => t.name);
  const names = [];
  let cursor;
  do {
    const res = await client.listTools(params(cursor));
    names.push(...res.tools.map((t) => t.name));
    cursor = res.nextCursor;
  } while (cursor);
  return names;
}

function normalize(content) {
  return (content ?? []).map((b) => {
    const out = { type: b.type, text: b.text, mimeType: b.mimeType, data: b.data, uri: b.uri };
    if (b.resource) Object.assign(out, { uri: b.resource.uri, mimeType: b.resource.mimeType, text: b.resource.text });
    return out;
  });
}

const ops = {
  async connect(cmd) {
    if (cmd.lib === 'v1') v1types = await import('@modelcontextprotocol/sdk/types.js');
    return connect(cmd);
  },
  async ping() {
    await client.ping();
    return {};
  },
  listTools: (cmd) => page('tools/list', 'tools', 'name', cmd.cursor),
  allTools,
  async callTool(cmd, signal) {
    const opts = { signal, timeout: 120000 };
    if (cmd.progress) {
      opts.onprogress = (p) => write({ event: { method: 'notifications/progress', progress: p.progress, total: p.total } });
    }
    const p = { name: cmd.name, arguments: cmd.args ?? {} };
    if (logLevel) p._meta = { 'io.modelcontextprotocol/logLevel': logLevel };
    // v2's callTool takes (params, options); v1's (params, resultSchema, options).
    const res = lib === 'v2' ? await client.callTool(p, opts) : await client.callTool(p, undefined, opts);
    return { content: normalize(res.content), structuredContent: res.structuredContent, isError: res.isError ?? false };
  },
  listResources: (cmd) => page('resources/list', 'resources', 'uri', cmd.cursor),
  listTemplates: (cmd) => page('resources/templates/list', 'resourceTemplates', 'uriTemplate', cmd.cursor),
  async readResource(cmd) {
    return (await client.readResource({ uri: cmd.uri })).contents;
  },
  listPrompts: (cmd) => page('prompts/list', 'prompts', 'name', cmd.cursor),
  async getPrompt(cmd) {
    const res = await client.getPrompt({ name: cmd.name, arguments: cmd.args ?? {} });
    return normalize(res.messages.map((m) => m.content));
  },
  async complete(cmd) {
    const res = await client.complete({ ref: { type: 'ref/prompt', name: cmd.prompt }, argument: { name: cmd.arg, value: cmd.value } });
    return res.completion.values;
  },
  async setLogLevel(cmd) {
    // v2 refuses logging/setLevel on a 2026-07-28 connection: the level
    // travels in each request's _meta there, which callTool adds.
    if (lib === 'v2' && isModern()) logLevel = cmd.level;
    else await client.setLoggingLevel(cmd.level);
    return {};
  },
  async subscribe(cmd) {
    subscribed.add(cmd.uri);
    if (isModern()) await relisten();
    else await client.subscribeResource({ uri: cmd.uri });
    return {};
  },
  async unsubscribe(cmd) {
    subscribed.delete(cmd.uri);
    if (isModern()) await relisten();
    else await client.unsubscribeResource({ uri: cmd.uri });
    return {};
  },
  async cancel(cmd) {
    controllers.get(cmd.target)?.abort();
    return {};
  },
  async close() {
    if (listen) await listen.close();
    const proc = transport._process;
    const exited = proc && proc.exitCode === null ? new Promise((r) => proc.once('exit', (code) => r(code))) : Promise.resolve(proc?.exitCode ?? null);
    await client.close();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 15000))]);
    return { exitCode: code, stderr: stderrText };
  },
};

function errorOf(e) {
  const code = typeof e?.code === 'number' ? e.code : 0;
  return { code, message: String(e?.message ?? e) };
}

const rl = createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  const cmd = JSON.parse(line);
  const op = ops[cmd.op];
  if (!op) {
    write({ id: cmd.id, error: { code: 0, message: `unknown op ${cmd.op}` } });
    return;
  }
  const ac = new AbortController();
  controllers.set(cmd.id, ac);
  try {
    write({ id: cmd.id, result: (await op(cmd, ac.signal)) ?? null });
  } catch (e) {
    write({ id: cmd.id, error: errorOf(e) });
  } finally {
    controllers.delete(cmd.id);
  }
});
rl.on('close', () => process.exit(0));
