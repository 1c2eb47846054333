// Package client is an MCP client: it connects to one server over a
// [Transport], negotiates the newest protocol revision both sides speak,
// and offers the protocol's calls as context-first methods.
//
//	c, err := client.New(ctx, &client.CommandTransport{Path: "my-server"})
//	if err != nil { ... }
//	defer c.Close()
//	tools, err := c.ListTools(ctx)
//	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
//
// Transports: [Command] spawns a server and speaks newline-delimited JSON
// on its standard input and output; [Stream] does the same over any
// reader and writer; [HTTP] speaks Streamable HTTP; package transports/inprocess
// runs a snodo dispatch.Runtime in the same process.
//
// Revisions: 2026-07-28 (stateless, probed with server/discover) and the
// initialize era, 2025-11-25 and 2025-06-18, which the client falls back
// to when the probe shows an older server. The calls behave the same in
// every revision; what differs (the request _meta, HTTP headers and
// sessions, how input is asked for, how a subscription is made) is the
// client's business.
//
// Cancellation goes through contexts: a call whose context ends, or whose
// deadline ([Limits].RequestTimeout) passes, is cancelled at
// the server as its transport requires. Protocol errors are
// *jsonrpc.Error values; a tool's own failure is a result with IsError
// set.
//
// The server may need input to finish a tools/call, resources/read or
// prompts/get: on 2026-07-28 it answers input_required and the client
// retries, in the initialize era it sends requests of its own. Either way
// the handlers registered with [WithElicitation], [WithSampling] and
// [WithRoots] answer, and declare the matching client capabilities.
//
// Results the server marks cacheable (ttlMs, cacheScope) are kept in a
// [Cache] until they expire or a change notification concerns them.
// [Client.Listen] opens a subscription to those notifications.
package client
