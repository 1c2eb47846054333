// Package dispatch is the synchronous core of snodo: an immutable [Runtime]
// that runs one JSON-RPC message in the calling goroutine and returns a
// protocol-neutral [Outcome].
//
// It knows nothing of actors or transports, so it can be called directly in
// tests and from any host. Every message takes the same path:
//
//	raw message  (jsonrpc.Decode: bounds and envelope)
//	  -> protocol registry: pick the dialect for this message
//	  -> the dialect admits it: _meta, versions, headers, capabilities
//	  -> core operation or extension route
//	  -> application callback (tool handler), isolated from panics
//	  -> protocol-neutral result
//	  -> the dialect shapes it for the wire
//
// [Runtime.Admit] runs the first three steps without calling any handler,
// and [Runtime.Execute] the rest, so a transport can refuse a request before
// it takes an execution slot. [Runtime.Dispatch] does both.
//
// # The server surface
//
// Components and behaviour are options to [New]: tools ([WithTool] with raw
// JSON Schemas, [WithTypedTool] with schemas inferred from Go types),
// resources ([WithResource], [WithResourceTemplate]), prompts
// ([WithPrompt]) and their completions, an [Authorizer], [Extension]s,
// cache hints ([WithCacheHint]) and the requestState key ring
// ([WithRequestStateKeys]). Inside a handler, [ReportProgress] sends
// progress, [Logger] returns a *slog.Logger that reaches the client, and
// returning an *[InputRequired] asks the client for input (multi
// round-trip requests); the retry finds the answers in the request's
// [Input].
//
// Every application callback runs isolated: a panic becomes -32603 for
// that request only and is logged, with its stack, through the Runtime's
// logger ([WithLogger]); the client never sees it.
package dispatch
