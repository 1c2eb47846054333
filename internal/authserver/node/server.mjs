// An OAuth 2.1 authorization server for the authorization tests: the
// oidc-provider package on 127.0.0.1, configured the way an MCP
// deployment would be (PKCE, resource indicators with the resource as
// the token's audience, dynamic client registration, client ID metadata
// documents, refresh tokens, introspection). The one shortcut is the
// user: every interaction is approved at once as the account "alice",
// granting what the request asked for (or refusing it, access_denied,
// when it asks for a scope /test/deny named), so that an HTTP client
// following redirects plays the browser.
//
// It prints one JSON line, {"issuer": "http://127.0.0.1:PORT"}, once it
// is listening, and stops when its standard input closes.
//
// Test hooks, on the same origin (no browser ever calls them):
//   POST /test/resources  {"resource", "scopes", "format", "ttl"} registers
//                         a resource server (format "jwt" or "opaque",
//                         ttl in seconds).
//   POST /test/deny       {"scopes": [...]} makes the user refuse any
//                         authorization asking for one of those scopes.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(process.env.AUTHSERVER_CONFIG || '{}');
const resources = new Map();
let denied = new Set();

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'as-key-1', alg: 'RS256', use: 'sig' };

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const clients = [];
if (config.introspectionClient) {
  clients.push({
    client_id: config.introspectionClient.id,
    client_secret: config.introspectionClient.secret,
    grant_types: [],
    redirect_uris: [],
    response_types: [],
  });
}
if (config.publicClient) {
  clients.push({
    client_id: config.publicClient.id,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    redirect_uris: config.publicClient.redirectURIs,
    response_types: ['code'],
  });
}

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  // Resource scopes are announced too, since a client may name them in its
  // registration (the TypeScript client does).
  scopes: ['openid', 'offline_access', ...(config.scopes || [])],
  // Everything here runs on 127.0.0.1, which the package's protection
  // against server-side request forgery refuses to fetch from (a client ID
  // metadata document); the test server lets its fetches reach it.
  fetch: (url, options) => {
    const { dispatcher, ...rest } = options;
    return globalThis.fetch(url, rest);
  },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  expiresWithSession: async () => false,
  ttl: {
    AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300,
    AuthorizationCode: 60,
    Grant: 3600,
    Interaction: 600,
    RefreshToken: 3600,
    Session: 3600,
  },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        const rs = resources.get(indicator);
        if (!rs) {
          throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        }
        const info = { scope: rs.scopes.join(' '), audience: indicator, accessTokenTTL: rs.ttl || 300 };
        if (rs.format === 'opaque') {
          info.accessTokenFormat = 'opaque';
        } else {
          info.accessTokenFormat = 'jwt';
          info.jwt = { sign: { alg: 'RS256' } };
        }
        return info;
      },
    },
  },
});
provider.proxy = false;

// The user: logs in as alice and grants what was asked, less the denied
// scopes.
provider.use(async (ctx, next) => {
  const m = /^\/interaction\/([^/]+)$/.exec(ctx.path);
  if (!m || ctx.method !== 'GET') {
    return next();
  }
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  let result;
  if (details.prompt.name === 'login') {
    result = { login: { accountId: 'alice' } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    const refused = Object.values(missing.missingResourceScopes || {}).flat().filter((s) => denied.has(s));
    if (refused.length > 0) {
      const to = await provider.interactionResult(ctx.req, ctx.res, {
        error: 'access_denied',
        error_description: `the user refused ${refused.join(' ')}`,
      }, { mergeWithLastSubmission: false });
      ctx.redirect(to);
      return;
    }
    if (missing.missingOIDCScope) {
      grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    }
    if (missing.missingOIDCClaims) {
      grant.addOIDCClaims(missing.missingOIDCClaims);
    }
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes || {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  ctx.redirect(to);
});

// The test hooks.
provider.use(async (ctx, next) => {
  if (ctx.method !== 'POST' || !ctx.path.startsWith('/test/')) {
    return next();
  }
  const chunks = [];
  for await (const c of ctx.req) {
    chunks.push(c);
  }
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
  switch (ctx.path) {
    case '/test/resources':
      resources.set(body.resource, body);
      break;
    case '/test/deny':
      denied = new Set(body.scopes || []);
      break;
    default:
      ctx.status = 404;
      return undefined;
  }
  ctx.status = 204;
  return undefined;
});

server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);

process.stdin.resume();
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
