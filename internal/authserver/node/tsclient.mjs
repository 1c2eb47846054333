// The official MCP TypeScript client logging in to a protected MCP
// server with its own OAuth implementation (dynamic registration, PKCE,
// the resource indicator), then listing the tools and calling one (with
// a step-up when the server asks for more scopes).
//
//   node tsclient.mjs <server URL> <tool>
//
// The redirect comes back to a listener this script opens on 127.0.0.1.
// It writes JSON lines to standard output: {"authorize": URL} when the
// user must be sent to the authorization server (the caller plays the
// browser), then {"tools": [...], "content": [...]} or {"error": "..."}.
import { createServer } from 'node:http';

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [serverURL, tool] = process.argv.slice(2);
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);

const callback = createServer();
await new Promise((resolve) => callback.listen(0, '127.0.0.1', resolve));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;
// Each redirect's parameters, in order.
const redirects = [];
let waiting;
const nextRedirect = () => new Promise((resolve) => {
  if (redirects.length > 0) {
    resolve(redirects.shift());
  } else {
    waiting = resolve;
  }
});
const delivered = (params) => {
  if (waiting) {
    const w = waiting;
    waiting = undefined;
    w(params);
  } else {
    redirects.push(params);
  }
};
callback.on('request', (req, res) => {
  const u = new URL(req.url, redirectUrl);
  if (u.pathname !== '/callback') {
    res.writeHead(404).end();
    return;
  }
  delivered(u.searchParams);
  res.writeHead(200, { 'content-type': 'text/plain' }).end('Authorization complete.\n');
});

const saved = {};
let state;
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: 'MCP TypeScript client',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  },
  state() {
    state = crypto.randomUUID();
    return state;
  },
  clientInformation() { return saved.client; },
  saveClientInformation(info) { saved.client = info; },
  tokens() { return saved.tokens; },
  saveTokens(tokens) { saved.tokens = tokens; },
  redirectToAuthorization(url) { say({ authorize: url.href }); },
  saveCodeVerifier(v) { saved.verifier = v; },
  codeVerifier() { return saved.verifier; },
};

const client = new Client({ name: 'ts-oauth-check', version: '1.0.0' });
let transport;
const connect = async () => {
  transport = new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider });
  await client.connect(transport);
};
// authorized runs op, completing an authorization (a login, a step-up)
// each time the SDK asks for one, at most three times.
const authorized = async (op) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!(e instanceof UnauthorizedError) || attempt === 3) {
        throw e;
      }
      const params = await nextRedirect();
      if (params.get('state') !== state) {
        throw new Error('the authorization response carries another state');
      }
      await transport.finishAuth(params);
      await client.close();
      await connect();
    }
  }
};
try {
  await authorized(connect);
  const { tools } = await authorized(() => client.listTools());
  const result = await authorized(() => client.callTool({ name: tool, arguments: {} }));
  say({ tools: tools.map((t) => t.name), content: result.content, isError: result.isError ?? false });
  await client.close();
} catch (e) {
  say({ error: String(e?.stack || e) });
}
callback.closeAllConnections();
callback.close();
