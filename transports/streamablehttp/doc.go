// Package streamablehttp serves MCP over Streamable HTTP: one POST per
// request, answered with application/json, or with text/event-stream once
// the handler reports progress (or asks an initialize-era client for
// input) and for a subscriptions/listen stream. Revision 2026-07-28 is
// stateless; initialize-era clients (2025-11-25, 2025-06-18) are served
// by their MCP-Protocol-Version header, and with [WithSessions] get
// Mcp-Session-Id sessions (a GET stream, DELETE, server-to-client
// requests, notifications/cancelled), which are off by default.
//
// There are three ways in, all built on the same rules:
//
//   - [Listen] (or [Serve]) runs the native listener: it owns its
//     net.Listener (127.0.0.1 by default) and a net/http server bounded at
//     every stage: connection cap, head, read and body timeouts,
//     header and body size limits, graceful drain.
//   - [NewHandler] returns an [http.Handler] to mount in an application's
//     own mux or router, behind its own authentication middleware, TLS
//     and timeouts.
//   - [Handler.Prepare], [Handler.Execute] and [Handler.Handle] serve a
//     plain [Request] value, so any other server (fasthttp, a serverless
//     runtime) can host MCP the same way.
//
// The options of both ([Option]: the path, Origin and Host rules,
// [Limits], sessions, the principal, the supervision tree) are accepted
// by NewHandler and Listen alike; those of the native listener alone
// ([ListenerOption]: its address or net.Listener, [ListenerLimits],
// middleware) do not compile as a [HandlerOption].
//
// Whichever way a request arrives, the checks run in this order, each with
// its status: path (404), method (405, Allow: POST; GET and DELETE are
// allowed with sessions on), draining (503),
// Origin (403), Host (403), Content-Type (415), Accept (406),
// Transfer-Encoding or no Content-Length (411), body size (413), body
// timeout (408), JSON and envelope (400), then the protocol's own
// admission in the dispatch core: the MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-* headers against the body (400, -32020), the
// version (400, -32022), the method (404, -32601). Executor overload and
// the subscription cap answer 503, a request timeout 504. Errors from
// running a request map -32601 to 404; -32602, -32020, -32021, -32022,
// -32600 and -32700 to 400; -32603 to 500; any other code to 200. Once an
// event stream has started, a later error is its final event. An
// initialize-era request's errors are 200 (an unknown method too, since
// 404 tells such a client its session is gone), except the header and
// session refusals (400, and 404 for an unknown session).
//
// Every refusal the transport makes on its own, before the dispatch core
// sees the request (each status above up to the body checks, an unknown
// session, executor overload, drain, the session and subscription caps, a
// duplicate id, and on the native listener net/http's 431 and a
// connection over the cap), reaches the Runtime's instrumentation sink as
// an instrumentation.RefusalEvent with its reason.
//
// A client disconnect cancels the request: the handler's context ends at
// once and nothing more is written for it. Each request in flight for more
// than a moment (10 ms), or in flight when the tree is inspected, is a
// request actor in the supervision tree, under the listener (kind
// listener) or the handler (kind handler); each open subscription stream
// is a subscription actor under its request.
package streamablehttp
