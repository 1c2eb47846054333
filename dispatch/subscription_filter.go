package dispatch

// subscriptions/listen filters: parsing them and matching events against them.

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// MethodListen is the 2026-07-28 method that opens a subscription stream.
// Transports recognise it to serve the call as a stream (see
// [Runtime.OpenStream]) rather than as a job.
const MethodListen = "subscriptions/listen"

// maxResourceSubscriptions bounds the resource URIs one
// subscriptions/listen may name; more is -32602.
const maxResourceSubscriptions = 1000

// filterEmpty reports whether the filter names no notification.
func filterEmpty(f mcp.SubscriptionFilter) bool {
	if f.ToolsListChanged || f.PromptsListChanged || f.ResourcesListChanged || len(f.ResourceSubscriptions) > 0 {
		return false
	}
	for _, keys := range f.Keys {
		if len(keys) > 0 {
			return false
		}
	}
	return true
}

// filterWithin reports whether every notification f names is also named by g.
// It runs in time linear in the two URI lists.
func filterWithin(f, g mcp.SubscriptionFilter) bool {
	if f.ToolsListChanged && !g.ToolsListChanged ||
		f.PromptsListChanged && !g.PromptsListChanged ||
		f.ResourcesListChanged && !g.ResourcesListChanged {
		return false
	}
	if !listWithin(f.ResourceSubscriptions, g.ResourceSubscriptions) {
		return false
	}
	for member, keys := range f.Keys {
		if !listWithin(keys, g.Keys[member]) {
			return false
		}
	}
	return true
}

// listWithin reports whether every string of f is in g, in time linear in
// the two.
func listWithin(f, g []string) bool {
	if len(f) == 0 {
		return true
	}
	set := make(map[string]struct{}, len(g))
	for _, u := range g {
		set[u] = struct{}{}
	}
	for _, u := range f {
		if _, ok := set[u]; !ok {
			return false
		}
	}
	return true
}

// filterWants reports whether the filter names ev's kind (and, for a resource
// update, the URI it is about). It scans the URI list; a hub keeps an
// index instead.
func filterWants(f mcp.SubscriptionFilter, ev Event) bool {
	switch ev.Kind {
	case EventToolsListChanged:
		return f.ToolsListChanged
	case EventPromptsListChanged:
		return f.PromptsListChanged
	case EventResourcesListChanged:
		return f.ResourcesListChanged
	case EventResourceUpdated:
		return slices.Contains(f.ResourceSubscriptions, ev.key())
	case EventExtension:
		return slices.Contains(f.Keys[ev.Member], ev.Key)
	}
	return false
}

// filterAttrs describes the filter for the supervision tree.
func filterAttrs(f mcp.SubscriptionFilter, into map[string]string) {
	if f.ToolsListChanged {
		into["toolsListChanged"] = "true"
	}
	if f.PromptsListChanged {
		into["promptsListChanged"] = "true"
	}
	if f.ResourcesListChanged {
		into["resourcesListChanged"] = "true"
	}
	if n := len(f.ResourceSubscriptions); n > 0 {
		into["resourceSubscriptions"] = strconv.Itoa(n)
	}
	for member, keys := range f.Keys {
		if len(keys) > 0 {
			into[member] = strconv.Itoa(len(keys))
		}
	}
}

// parseListenParams reads a subscriptions/listen's filter. Members an
// installed extension adds (ExtensionFilter) go to Keys; other unknown
// members of notifications are ignored. A known member of the wrong type,
// more than maxResourceSubscriptions URIs or maxListenKeys keys, or a URI
// that is not absolute is -32602. Repeated URIs and keys are kept once.
// The work is linear in the size of params.
func (rt *Runtime) parseListenParams(params []byte) (mcp.SubscriptionFilter, *jsonrpc.Error) {
	var f mcp.SubscriptionFilter
	raw, ok := jsonwire.Member(params, "notifications")
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return f, invalidParams("Invalid params: notifications must be an object")
	}
	var members map[string]json.RawMessage
	if err := jsonwire.Unmarshal(raw, &members); err != nil {
		return f, invalidParams("Invalid params: malformed notifications")
	}
	for _, m := range []struct {
		name string
		dst  *bool
	}{
		{"toolsListChanged", &f.ToolsListChanged},
		{"promptsListChanged", &f.PromptsListChanged},
		{"resourcesListChanged", &f.ResourcesListChanged},
	} {
		switch string(members[m.name]) {
		case "", "null", "false":
		case "true":
			*m.dst = true
		default:
			return f, invalidParams("Invalid params: notifications." + m.name + " must be a boolean")
		}
	}
	uris, jerr := parseResourceSubscriptions(members["resourceSubscriptions"])
	if jerr != nil {
		return f, jerr
	}
	f.ResourceSubscriptions = uris
	for member := range rt.listenMembers {
		keys, jerr := parseListenKeys(member, members[member])
		if jerr != nil {
			return f, jerr
		}
		if len(keys) > 0 {
			if f.Keys == nil {
				f.Keys = map[string][]string{}
			}
			f.Keys[member] = keys
		}
	}
	return f, nil
}

// parseListenKeys reads the keys of an extension's filter member: an
// array of at most maxListenKeys non-empty strings, repeats kept once.
func parseListenKeys(member string, raw json.RawMessage) ([]string, *jsonrpc.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	what := "Invalid params: notifications." + member
	var items []json.RawMessage
	if raw[0] != '[' || jsonwire.Unmarshal(raw, &items) != nil {
		return nil, invalidParams(what + " must be an array of strings")
	}
	if len(items) > maxListenKeys {
		return nil, (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: what + " names more than 1,000 keys"}).
			WithData(map[string]any{"limit": maxListenKeys, "count": len(items)})
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		k, ok := jsonwire.Unquote(it)
		if !ok || k == "" {
			return nil, invalidParams(what + " must be an array of non-empty strings")
		}
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out, nil
}

func parseResourceSubscriptions(raw json.RawMessage) ([]string, *jsonrpc.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	const what = "Invalid params: notifications.resourceSubscriptions"
	if raw[0] != '[' {
		return nil, invalidParams(what + " must be an array of URIs")
	}
	var items []json.RawMessage
	if err := jsonwire.Unmarshal(raw, &items); err != nil {
		return nil, invalidParams(what + " must be an array of URIs")
	}
	if len(items) > maxResourceSubscriptions {
		return nil, (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: what + " names more than 1,000 URIs"}).
			WithData(map[string]any{"limit": maxResourceSubscriptions, "count": len(items)})
	}
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		u, ok := jsonwire.Unquote(it)
		if !ok {
			return nil, invalidParams(what + " must be an array of URIs")
		}
		if err := checkAbsoluteURI(u); err != nil {
			return nil, (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: what + " must hold absolute URIs"}).
				WithData(map[string]any{"reason": err.Error()})
		}
		if _, dup := seen[u]; dup {
			continue
		}
		seen[u] = struct{}{}
		out = append(out, u)
	}
	return out, nil
}

// offered limits a requested filter to what the server serves: list
// changes for the component kinds it advertises, resource updates when it
// has resources, only the resource URIs the Authorizer lets the request
// use, and only the extension keys the request may follow (offeredKeys). This is the filter the source is asked to honour.
func (rt *Runtime) offered(ctx context.Context, c *Call, f mcp.SubscriptionFilter) mcp.SubscriptionFilter {
	caps := rt.capabilities
	f.ToolsListChanged = f.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = f.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	res := caps.Resources
	f.ResourcesListChanged = f.ResourcesListChanged && res != nil && res.ListChanged
	f.Keys = rt.offeredKeys(ctx, c, f.Keys)
	if res == nil || !res.Subscribe {
		f.ResourceSubscriptions = nil
		return f
	}
	if rt.authorizer != nil && len(f.ResourceSubscriptions) > 0 {
		kept := make([]string, 0, len(f.ResourceSubscriptions))
		for _, u := range f.ResourceSubscriptions {
			a := &Access{Phase: PhaseInvocation, Kind: KindResource, Name: u, URI: u, Method: c.Info.Method, Info: &c.Info}
			if rt.authorizer.Authorize(ctx, a) == nil {
				kept = append(kept, u)
			}
		}
		f.ResourceSubscriptions = kept
	}
	if len(f.ResourceSubscriptions) == 0 {
		f.ResourceSubscriptions = nil
	}
	return f
}
