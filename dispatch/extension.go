// Extensions: exact-versioned methods beyond the core protocol, installed
// with WithExtension.

package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Extension adds methods beyond the core protocol. Installing it
// advertises it in capabilities.extensions; its methods run only for
// requests whose client advertised it too (clientCapabilities.extensions)
// and whose settings its Negotiate accepts. A request that does not
// qualify gets -32021 naming the extension in data.requiredCapabilities.
type Extension struct {
	// ID is the extension identifier: a prefix, a slash and a name, such
	// as "com.example/search".
	ID string
	// Settings is the server's settings object, advertised as
	// capabilities.extensions[ID] ({} when nil).
	Settings map[string]any
	// Versions are the exact protocol revisions whose requests may reach
	// the methods; each must be enabled in the Runtime.
	Versions []string
	// Methods maps exact method names to their handlers. A name used by
	// the core protocol (any revision) or by another extension fails New.
	Methods map[string]ExtensionHandler
	// Negotiate, when set, runs before each method call with the client's
	// settings object. A nil error accepts; a *jsonrpc.Error refuses with
	// that error; any other error refuses with -32021.
	Negotiate func(ctx context.Context, clientSettings map[string]any) error
	// NameParams maps some of Methods to the params member their HTTP
	// Mcp-Name header mirrors (as params.name for tools/call): the
	// 2026-07-28 rules for that header then apply to them (-32020 when it
	// is missing or differs).
	NameParams map[string]string
	// ToolCall, when set, sees every tools/call of an enabled revision once
	// the tool is found, authorized and its arguments valid, and before its
	// handler runs, whether or not the request declared the extension
	// (ToolCall.Declared says). It returns nil to let the call run as
	// usual; a JSON object to answer the call with it instead (its
	// resultType kept, the server's identity added to its _meta); or an
	// error to refuse the call (a *jsonrpc.Error as is, anything else
	// -32603). ToolCall.Run runs the handler later, detached from the
	// request. At most one installed extension may set it.
	ToolCall func(ctx context.Context, call *ToolCall) (json.RawMessage, error)
	// Filters are the members the extension adds to the filter of
	// subscriptions/listen (see [ExtensionFilter]): a stream whose request
	// declared the extension, at one of Versions, may name keys in them
	// and receives the extension's notifications for those keys. They
	// need a subscription source ([WithSubscriptions]).
	Filters []ExtensionFilter
}

// ExtensionHandler serves one extension method. The result must encode as
// a JSON object; the dialect adds resultType ("complete" unless the object
// has one) and the server's identity in _meta. Errors behave as in a
// [PromptHandler].
type ExtensionHandler func(ctx context.Context, req *ExtensionRequest) (any, error)

// ExtensionRequest is what an ExtensionHandler receives.
type ExtensionRequest struct {
	// Extension is the extension's ID.
	Extension string
	// Method is the method called.
	Method string
	// Params is the raw params object (nil when absent).
	Params json.RawMessage
	// ClientSettings is the settings object the client advertised.
	ClientSettings map[string]any
	// Info describes the request.
	Info *RequestInfo
}

type extensionRoute struct {
	ext     *Extension
	handler ExtensionHandler
}

// coreMethods are every method name the core protocol uses in any
// revision this library knows, in either direction. Extensions may not
// take them.
var coreMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true,
	"logging/setLevel": true, "subscriptions/listen": true,
	"elicitation/create": true, "sampling/createMessage": true, "roots/list": true,
}

// WithExtension installs an extension.
func WithExtension(e Extension) Option {
	return optionFunc(func(b *builder) error {
		prefix, name, ok := strings.Cut(e.ID, "/")
		if !ok || prefix == "" || name == "" {
			return fmt.Errorf("dispatch: extension id %q must be a prefix, a slash and a name", e.ID)
		}
		if _, dup := b.extensions[e.ID]; dup {
			return fmt.Errorf("dispatch: extension %q installed twice", e.ID)
		}
		if len(e.Versions) == 0 {
			return fmt.Errorf("dispatch: extension %q names no protocol version", e.ID)
		}
		if len(e.Methods) == 0 {
			return fmt.Errorf("dispatch: extension %q has no methods", e.ID)
		}
		ext := e
		ext.Versions = slices.Clone(e.Versions)
		for m, h := range e.Methods {
			switch {
			case m == "" || coreMethods[m] || strings.HasPrefix(m, "notifications/"):
				return fmt.Errorf("dispatch: extension %q method %q collides with the core protocol", e.ID, m)
			case h == nil:
				return fmt.Errorf("dispatch: extension %q method %q has no handler", e.ID, m)
			}
			if other, dup := b.extRoutes[m]; dup {
				return fmt.Errorf("dispatch: extension %q method %q is already installed by %q", e.ID, m, other.ext.ID)
			}
			b.extRoutes[m] = &extensionRoute{ext: &ext, handler: h}
		}
		for m, param := range e.NameParams {
			if _, ok := e.Methods[m]; !ok || param == "" {
				return fmt.Errorf("dispatch: extension %q names the Mcp-Name param of %q, which it does not serve", e.ID, m)
			}
		}
		ext.NameParams = maps.Clone(e.NameParams)
		if e.ToolCall != nil {
			if b.toolCallExt != nil {
				return fmt.Errorf("dispatch: extensions %q and %q both intercept tools/call", b.toolCallExt.ID, e.ID)
			}
			b.toolCallExt = &ext
		}
		ext.Filters = slices.Clone(e.Filters)
		if err := b.addFilters(&ext); err != nil {
			return err
		}
		b.extensions[e.ID] = &ext
		return nil
	})
}

// extensionRoute returns the route of an extension method for a revision.
func (rt *Runtime) extensionRoute(method, version string) *extensionRoute {
	r := rt.extRoutes[method]
	if r == nil || !slices.Contains(r.ext.Versions, version) {
		return nil
	}
	return r
}

// nameParam returns the params member a method's Mcp-Name mirrors, or ""
// (also for a nil route).
func (r *extensionRoute) nameParam(method string) string {
	if r == nil {
		return ""
	}
	return r.ext.NameParams[method]
}

// admitExtension checks that the client advertised the extension.
func admitExtension(r *extensionRoute, caps mcp.ClientCapabilities) *jsonrpc.Error {
	if _, ok := caps.Extensions[r.ext.ID]; ok {
		return nil
	}
	return errMissingExtension(r.ext.ID)
}

func errMissingExtension(id string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapability, Message: "Missing required client capability: extension " + id}).
		WithData(map[string]any{"requiredCapabilities": mcp.ClientCapabilities{Extensions: map[string]map[string]any{id: {}}}})
}

// extensionResult is the neutral result of an extension method: a JSON
// object.
type extensionResult struct{ body []byte }

func opExtension(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	r := rt.extensionRoute(c.Info.Method, c.Info.ProtocolVersion)
	if r == nil {
		return nil, rt.methodNotFound(c.Info.Method)
	}
	settings := c.Info.ClientCapabilities.Extensions[r.ext.ID]
	if r.ext.Negotiate != nil {
		if err := r.ext.Negotiate(ctx, settings); err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				return nil, je
			}
			return nil, errMissingExtension(r.ext.ID)
		}
	}
	res, err := r.handler(ctx, &ExtensionRequest{Extension: r.ext.ID, Method: c.Info.Method, Params: c.Params, ClientSettings: settings, Info: &c.Info})
	if err != nil {
		return nil, rt.callbackError(c, err)
	}
	body, err := jsonwire.API.Marshal(res)
	if err != nil {
		return nil, rt.internal(c, "encoding the extension result", err)
	}
	if len(body) == 0 || body[0] != '{' {
		return nil, rt.internal(c, "extension result", errors.New("the result is not a JSON object"))
	}
	return &extensionResult{body: body}, nil
}
