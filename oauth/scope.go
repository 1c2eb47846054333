// Scope policies: a dispatch.Authorizer requiring scopes per component.
package oauth

import (
	"context"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
)

// CodeInsufficientScope is the JSON-RPC error code of a call refused for
// lack of scope (JSON-RPC leaves -32000 to -32099 to servers). Its data
// is {"scope": "<the scopes the call needs, space-separated>"}. Over HTTP
// the [Middleware] answers such a refusal with 403 and an
// insufficient_scope challenge instead of 200.
const CodeInsufficientScope = -32003

// ScopePolicy is a dispatch.Authorizer that requires scopes of the
// request's [Principal]: a component whose scopes the token lacks is left
// out of lists, and using it is refused with [CodeInsufficientScope]
// naming every scope it needs (so that one step-up is enough). A request
// without a *Principal has no scopes.
//
// A component listed in none of the maps needs Default. Scope names are
// compared exactly; Implies declares broader scopes (the MCP
// authorization specification asks servers to honor scope hierarchies).
type ScopePolicy struct {
	// Tools maps a tool name to the scopes calling it needs (all of them).
	Tools map[string][]string
	// Prompts maps a prompt name to the scopes getting it needs.
	Prompts map[string][]string
	// Resources maps a resource URI, or a template's URI template as
	// registered, to the scopes reading it needs.
	Resources map[string][]string
	// Default is what an unlisted component needs; nil: nothing.
	Default []string
	// Implies maps a scope to the scopes it includes ("files:admin" →
	// "files:read", "files:write"), followed transitively.
	Implies map[string][]string
	// Next, when set, is asked after the scopes are satisfied (the
	// application's own policy).
	Next dispatch.Authorizer
}

// Authorize implements dispatch.Authorizer.
func (p *ScopePolicy) Authorize(ctx context.Context, a *dispatch.Access) error {
	need := p.required(a.Kind, a.Name)
	if len(need) > 0 {
		var granted []string
		if pr, ok := a.Info.Principal.(*Principal); ok && pr != nil {
			granted = p.expand(pr.Scopes)
		}
		for _, s := range need {
			if !slices.Contains(granted, s) {
				if a.Phase == dispatch.PhaseDiscovery {
					return dispatch.ErrConceal
				}
				return InsufficientScope(need...)
			}
		}
	}
	if p.Next != nil {
		return p.Next.Authorize(ctx, a)
	}
	return nil
}

func (p *ScopePolicy) required(kind dispatch.ComponentKind, name string) []string {
	var m map[string][]string
	switch kind {
	case dispatch.KindTool:
		m = p.Tools
	case dispatch.KindPrompt:
		m = p.Prompts
	case dispatch.KindResource, dispatch.KindResourceTemplate:
		m = p.Resources
	}
	if s, ok := m[name]; ok {
		return s
	}
	return p.Default
}

// expand adds what the granted scopes imply.
func (p *ScopePolicy) expand(granted []string) []string {
	if len(p.Implies) == 0 {
		return granted
	}
	out := slices.Clone(granted)
	for i := 0; i < len(out); i++ {
		for _, s := range p.Implies[out[i]] {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// InsufficientScope is the refusal of a call that needs scopes: a
// *jsonrpc.Error with [CodeInsufficientScope] and the scopes in its data.
// An application's own dispatch.Authorizer may return it too.
func InsufficientScope(scopes ...string) *jsonrpc.Error {
	s := strings.Join(scopes, " ")
	return (&jsonrpc.Error{Code: CodeInsufficientScope, Message: "Forbidden: this request needs the scope " + s}).
		WithData(map[string]string{"scope": s})
}
