// Middleware: the application's own wrapping of every tool, resource and
// prompt handler (logging, metrics, argument rewriting, caching).

package dispatch

import "context"

// Invocation is one call of a tool, resource or prompt handler, as
// middleware sees it.
type Invocation struct {
	// Kind is KindTool, KindPrompt, KindResource (a fixed URI) or
	// KindResourceTemplate.
	Kind ComponentKind
	// Name is the tool's or prompt's name, the resource's URI or the
	// template's URI template.
	Name string
	// Info describes the request, its principal included.
	Info *RequestInfo
	// Request is the handler's request: a *CallToolRequest, a
	// *ReadResourceRequest or a *GetPromptRequest. Middleware may change
	// it before calling next (rewrite a tool's Arguments, say); the
	// arguments were validated before any middleware ran, so a rewrite
	// must keep to the schema itself.
	Request any
}

// InvocationHandler runs an Invocation. Its result is what the
// component's handler returns: a *mcp.CallToolResult, a
// *mcp.ReadResourceResult or a *mcp.GetPromptResult (a result of another
// type is answered with -32603), with the errors of that handler.
type InvocationHandler func(ctx context.Context, inv *Invocation) (any, error)

// Middleware wraps a component's handler: it returns a handler that does
// its work around a call of next, or answers without calling it (a
// cached result, a refusal of its own). See [PolicyOption] for where it
// runs among the built-in policies.
type Middleware func(next InvocationHandler) InvocationHandler
