// The Authorizer: who may discover and invoke which component, and the
// option that installs one.

package dispatch

import (
	"context"
	"errors"

	"github.com/snodo-go/snodo/jsonrpc"
)

// Phase is when an Authorizer is consulted.
type Phase uint8

const (
	// PhaseDiscovery: a list (tools/list, prompts/list, resources/list,
	// resources/templates/list) is being built. Components refused here are
	// left out before paging.
	PhaseDiscovery Phase = iota + 1
	// PhaseInvocation: a component is about to be used (tools/call,
	// prompts/get, resources/read, completion/complete), before its
	// arguments are checked.
	PhaseInvocation
)

// ComponentKind names a kind of component: what an Access is about, and
// what [Components.Without] removes.
type ComponentKind uint8

// The component kinds.
const (
	KindTool ComponentKind = iota + 1
	KindPrompt
	KindResource
	KindResourceTemplate
)

// Access describes one authorization question.
type Access struct {
	// Phase says whether the component is being listed (discovery) or
	// used (invocation).
	Phase Phase
	// Kind is the kind of component asked about.
	Kind ComponentKind
	// Name is the tool or prompt name, the resource URI, or the
	// template's URI template.
	Name string
	// URI is the concrete URI being read through a template (invocation
	// of a KindResourceTemplate by resources/read); "" otherwise.
	URI string
	// Method is the JSON-RPC method being served.
	Method string
	// Info describes the request, including its verified Principal.
	Info *RequestInfo
}

// Authorizer decides what a request may see and use.
//
// In the discovery phase any non-nil error hides the component. In the
// invocation phase, nil allows the call; [ErrConceal] (possibly wrapped)
// makes the component look unknown (the same error a missing one gets);
// a *jsonrpc.Error (found with errors.As) refuses with that error, so the
// application chooses its own code; any other error is -32603, logged and
// not sent. A panic is -32603 for that request only.
type Authorizer interface {
	// Authorize answers the question a describes; see the type's
	// comment for what each answer means in each phase.
	Authorize(ctx context.Context, a *Access) error
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a *Access) error

// Authorize implements Authorizer.
func (f AuthorizerFunc) Authorize(ctx context.Context, a *Access) error { return f(ctx, a) }

// ErrConceal makes an Authorizer's refusal look like an unknown component.
var ErrConceal = errors.New("dispatch: component concealed")

// WithAuthorizer installs the authorization hook.
func WithAuthorizer(a Authorizer) Option {
	return optionFunc(func(b *builder) error {
		if a == nil {
			return errors.New("dispatch: nil authorizer")
		}
		b.rt.authorizer = a
		return nil
	})
}

// visible reports whether a component may appear in a list.
func (rt *Runtime) visible(ctx context.Context, c *Call, kind ComponentKind, name string) bool {
	if rt.authorizer == nil {
		return true
	}
	return rt.authorizer.Authorize(ctx, &Access{Phase: PhaseDiscovery, Kind: kind, Name: name, Method: c.Info.Method, Info: &c.Info}) == nil
}

// authorizeUse asks the Authorizer about an invocation. unknown builds the
// error a missing component gets, returned when the Authorizer conceals.
func (rt *Runtime) authorizeUse(ctx context.Context, c *Call, kind ComponentKind, name, uri string, unknown func() *jsonrpc.Error) error {
	if rt.authorizer == nil {
		return nil
	}
	err := rt.authorizer.Authorize(ctx, &Access{Phase: PhaseInvocation, Kind: kind, Name: name, URI: uri, Method: c.Info.Method, Info: &c.Info})
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrConceal) {
		return unknown()
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return rt.internal(c, "authorization", err)
}

// filter returns the items of snap the Authorizer lets the call see (and,
// for a mounted component, its part's Authorizer).
func filter[T any](ctx context.Context, rt *Runtime, c *Call, snap *snapshot, items []T, kind ComponentKind, name func(T) string) []T {
	if rt.authorizer == nil && snap.mounts == nil {
		return items
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		n := name(it)
		if rt.visible(ctx, c, kind, n) && (snap.mounts == nil || snap.mounts.visible(ctx, c, kind, n)) {
			out = append(out, it)
		}
	}
	return out
}
