package client

// Per-call options, and the requests a Client sends for them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// CallOption adjusts one request.
type CallOption interface {
	applyCall(*request)
}

// callOptionFunc is a CallOption made of a function.
type callOptionFunc func(*request)

func (f callOptionFunc) applyCall(r *request) { f(r) }

// WithProgress asks the server for progress notifications and passes each
// to fn, on the goroutine that made the call, before the call returns.
func WithProgress(fn func(mcp.Progress)) CallOption {
	return callOptionFunc(func(r *request) { r.progress = fn })
}

// WithInputResponses answers a server's earlier request for input by hand
// (see InputRequiredError): responses by key, and the requestState to
// echo ("" for none).
func WithInputResponses(responses map[string]any, requestState string) CallOption {
	return callOptionFunc(func(r *request) {
		if len(responses) > 0 {
			r.params["inputResponses"] = maps.Clone(responses)
		}
		if requestState != "" {
			r.params["requestState"] = requestState
		}
		r.inputRound = true
	})
}

// WithCapabilities declares caps on this request (2026-07-28) in place
// of the capabilities the registered handlers declare. The party caps
// describe answers the server's input requests, not the handlers: they
// come back as an *[InputRequiredError], for the caller to relay (a
// proxy declares its own client's capabilities this way). A handler may
// return a *jsonrpc.Error, which is the answer to an initialize-era
// server's request as it is.
func WithCapabilities(caps mcp.ClientCapabilities) CallOption {
	return callOptionFunc(func(r *request) { r.caps = &caps })
}

// WithCallLogging asks the server for this request's log messages at
// level and above (on 2026-07-28, in place of the level given with
// [WithLogMessages]) and passes the messages that arrive within this
// request to fn, on the goroutine that made the call, instead of the
// client's handler. An initialize-era server sends its log messages
// outside any request (over HTTP) or at the session's level; those go to
// the client's handler.
func WithCallLogging(level string, fn func(mcp.LogMessage)) CallOption {
	return callOptionFunc(func(r *request) { r.logLevel, r.onLog = level, fn })
}

// WithMeta adds keys to the request's _meta (the protocol's own keys
// win).
func WithMeta(meta map[string]any) CallOption {
	return callOptionFunc(func(r *request) { r.extraMeta = maps.Clone(meta) })
}

func newRequest(method string, params map[string]any, opts []CallOption) *request {
	if params == nil {
		params = map[string]any{}
	}
	r := &request{method: method, params: params}
	for _, o := range opts {
		o.applyCall(r)
	}
	return r
}

// Call sends any request and decodes its result into result (when not
// nil). It is the way to reach methods this package does not wrap; input
// requests are answered as for the wrapped methods.
func (c *Client) Call(ctx context.Context, method string, params map[string]any, result any, opts ...CallOption) error {
	r := newRequest(method, maps.Clone(params), opts)
	raw, err := c.call(ctx, r)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return decodeResult(method, raw, result)
}

func decodeResult(method string, raw []byte, v any) error {
	if err := unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnexpectedResult, method, err)
	}
	return nil
}

// ListTools returns every tool, following pages up to the page bound.
// Tools whose x-mcp-header annotations are invalid are left out, as the
// protocol asks of clients. What it learns of each tool's annotations is
// used to mirror arguments in HTTP headers on later calls.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	err := c.paginate(ctx, "tools/list", func(raw []byte) (string, error) {
		var page struct {
			Tools      []mcp.Tool `json:"tools"`
			NextCursor *string    `json:"nextCursor"`
		}
		if err := decodeResult("tools/list", raw, &page); err != nil {
			return "", err
		}
		for _, t := range page.Tools {
			hs, err := paramHeaders(t.InputSchema)
			if err != nil {
				c.cfg.logger.Warn("client: leaving out a tool with invalid x-mcp-header annotations", "tool", t.Name, "error", err)
				continue
			}
			c.toolsMu.Lock()
			c.tools[t.Name] = hs
			c.toolsMu.Unlock()
			all = append(all, t)
		}
		return cursorOf(page.NextCursor), nil
	})
	return all, err
}

// ListResources returns every resource, following pages up to the bound.
func (c *Client) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	var all []mcp.Resource
	err := c.paginate(ctx, "resources/list", func(raw []byte) (string, error) {
		var page struct {
			Resources  []mcp.Resource `json:"resources"`
			NextCursor *string        `json:"nextCursor"`
		}
		if err := decodeResult("resources/list", raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Resources...)
		return cursorOf(page.NextCursor), nil
	})
	return all, err
}

// ListResourceTemplates returns every resource template, following pages
// up to the bound.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	var all []mcp.ResourceTemplate
	err := c.paginate(ctx, "resources/templates/list", func(raw []byte) (string, error) {
		var page struct {
			ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
			NextCursor        *string                `json:"nextCursor"`
		}
		if err := decodeResult("resources/templates/list", raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.ResourceTemplates...)
		return cursorOf(page.NextCursor), nil
	})
	return all, err
}

// ListPrompts returns every prompt, following pages up to the bound.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	var all []mcp.Prompt
	err := c.paginate(ctx, "prompts/list", func(raw []byte) (string, error) {
		var page struct {
			Prompts    []mcp.Prompt `json:"prompts"`
			NextCursor *string      `json:"nextCursor"`
		}
		if err := decodeResult("prompts/list", raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Prompts...)
		return cursorOf(page.NextCursor), nil
	})
	return all, err
}

// endOfList is the cursor value meaning "no more pages". A real cursor
// may be the empty string (2026-07-28), so absence is kept apart.
const endOfList = "\x00end"

func cursorOf(p *string) string {
	if p == nil {
		return endOfList
	}
	return *p
}

// paginate requests pages until one has no nextCursor. A cursor seen
// before (which would loop forever) and more than maxPages pages are both
// ErrTooManyPages.
func (c *Client) paginate(ctx context.Context, method string, page func(raw []byte) (string, error)) error {
	seen := map[string]bool{}
	cursor, first := "", true
	for n := 0; ; n++ {
		if n >= c.cfg.maxPages {
			return fmt.Errorf("client: %s: %w (%d)", method, ErrTooManyPages, c.cfg.maxPages)
		}
		params := map[string]any{}
		if !first {
			params["cursor"] = cursor
		}
		raw, err := c.call(ctx, &request{method: method, params: params, cacheable: true, cacheArg: cacheArgCursor(first, cursor)})
		if err != nil {
			return err
		}
		next, err := page(raw)
		if err != nil {
			return err
		}
		if next == endOfList {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("client: %s: %w: the server repeated the cursor %q", method, ErrTooManyPages, next)
		}
		seen[next] = true
		cursor, first = next, false
	}
}

func cacheArgCursor(first bool, cursor string) string {
	if first {
		return ""
	}
	return "cursor:" + cursor
}

// CallTool calls a tool. arguments is any value that encodes as a JSON
// object (nil for none). A tool's own failure comes back as a result with
// IsError set; protocol errors are *jsonrpc.Error.
//
// On 2026-07-28 over HTTP, arguments annotated with x-mcp-header in the
// tool's schema are mirrored as Mcp-Param-* headers. The client learns the
// annotations from ListTools; a call to a tool it has not listed that the
// server refuses with a header mismatch is retried once after listing.
func (c *Client) CallTool(ctx context.Context, name string, arguments any, opts ...CallOption) (*mcp.CallToolResult, error) {
	raw, err := c.callTool(ctx, name, arguments, false, opts)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := decodeResult("tools/call", raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// callTool sends a tools/call and returns its raw result; task declares
// the tasks extension, so that the result may be a task handle.
func (c *Client) callTool(ctx context.Context, name string, arguments any, task bool, opts []CallOption) (json.RawMessage, error) {
	var args json.RawMessage
	if arguments != nil {
		b, err := jsonwire.Marshal(arguments)
		if err != nil {
			return nil, fmt.Errorf("client: encoding arguments of %s: %w", name, err)
		}
		if len(b) == 0 || b[0] != '{' {
			if string(b) != "null" {
				return nil, fmt.Errorf("client: arguments of %s must encode as a JSON object", name)
			}
			b = nil
		}
		args = b
	}
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	build := func() *request {
		r := newRequest("tools/call", maps.Clone(params), opts)
		r.name = name
		c.toolsMu.Lock()
		hs, known := c.tools[name]
		c.toolsMu.Unlock()
		r.paramHeaders = paramHeaderValues(hs, args)
		r.knownTool = known
		r.task = task
		return r
	}
	r := build()
	raw, err := c.call(ctx, r)
	var je *jsonrpc.Error
	if err != nil && !r.knownTool && errors.As(err, &je) && je.Code == mcp.CodeHeaderMismatch {
		if _, lerr := c.ListTools(ctx); lerr == nil {
			raw, err = c.call(ctx, build())
		}
	}
	return raw, err
}

// ReadResource reads a resource. Results the server marks cacheable are
// served from the cache until they expire or the server announces a
// change.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	r := newRequest("resources/read", map[string]any{"uri": uri}, opts)
	r.name, r.cacheable, r.cacheArg = uri, true, uri
	raw, err := c.call(ctx, r)
	if err != nil {
		return nil, err
	}
	var res mcp.ReadResourceResult
	if err := decodeResult("resources/read", raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// GetPrompt gets a prompt with its arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, arguments map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	params := map[string]any{"name": name}
	if arguments != nil {
		params["arguments"] = maps.Clone(arguments)
	}
	r := newRequest("prompts/get", params, opts)
	r.name = name
	raw, err := c.call(ctx, r)
	if err != nil {
		return nil, err
	}
	var res mcp.GetPromptResult
	if err := decodeResult("prompts/get", raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of an argument of a prompt or resource
// template. resolved are the values of arguments already chosen (may be
// nil).
func (c *Client) Complete(ctx context.Context, ref mcp.Reference, argument, value string, resolved map[string]string, opts ...CallOption) (*mcp.CompleteResult, error) {
	params := map[string]any{"ref": ref, "argument": map[string]any{"name": argument, "value": value}}
	if len(resolved) > 0 {
		params["context"] = map[string]any{"arguments": maps.Clone(resolved)}
	}
	raw, err := c.call(ctx, newRequest("completion/complete", params, opts))
	if err != nil {
		return nil, err
	}
	var res mcp.CompleteResult
	if err := decodeResult("completion/complete", raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
