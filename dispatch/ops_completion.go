// The completion/complete operation.

package dispatch

import (
	"context"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

type completeParams struct {
	Ref *struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context *struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

// completeResult is the neutral result of completion/complete.
type completeResult struct{ completion *mcp.Completion }

func opComplete(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	var p completeParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if p.Ref == nil || p.Argument == nil {
		return nil, invalidParams("Invalid params: completion/complete needs ref and argument")
	}
	req := &CompleteRequest{Ref: p.Ref.Type, Argument: p.Argument.Name, Value: p.Argument.Value, Info: &c.Info}
	if p.Context != nil {
		req.Context = p.Context.Arguments
	}
	snap := rt.catalog.snapshot()
	var handler CompletionHandler
	var policy *componentPolicy
	var kind ComponentKind
	switch p.Ref.Type {
	case mcp.RefPrompt:
		req.Name = p.Ref.Name
		e, ok := snap.prompts[p.Ref.Name]
		if !ok {
			return nil, unknownPrompt(p.Ref.Name)
		}
		if err := rt.authorizeUse(ctx, c, KindPrompt, p.Ref.Name, "", func() *jsonrpc.Error { return unknownPrompt(p.Ref.Name) }); err != nil {
			return nil, err
		}
		policy, kind = e.policy, KindPrompt
		found := false
		for _, a := range e.prompt.Arguments {
			if a.Name == p.Argument.Name {
				found, handler = true, e.complete[a.Name]
			}
		}
		if !found {
			return nil, unknownArgument(p.Argument.Name)
		}
	case mcp.RefResource:
		req.Name = p.Ref.URI
		var t *templateEntry
		for _, e := range snap.templates {
			if e.template.URITemplate == p.Ref.URI {
				t = e
			}
		}
		unknown := (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown resource template: " + p.Ref.URI}).WithData(map[string]any{"uri": p.Ref.URI})
		if t == nil {
			return nil, unknown
		}
		if err := rt.authorizeUse(ctx, c, KindResourceTemplate, p.Ref.URI, "", func() *jsonrpc.Error { return unknown }); err != nil {
			return nil, err
		}
		if !t.parsed.HasVariable(p.Argument.Name) {
			return nil, unknownArgument(p.Argument.Name)
		}
		handler = t.complete[p.Argument.Name]
		policy, kind = t.policy, KindResourceTemplate
	default:
		return nil, invalidParams("Invalid params: ref.type must be ref/prompt or ref/resource")
	}
	if handler == nil {
		// A known argument nothing completes: no suggestions.
		return &completeResult{completion: cappedCompletion(nil)}, nil
	}
	res, err := rt.complete(ctx, policy, kind, req.Name, handler, req)
	if err != nil {
		return nil, rt.callbackError(c, err)
	}
	return &completeResult{completion: cappedCompletion(res)}, nil
}

func unknownArgument(name string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: unknown argument " + name}).WithData(map[string]any{"argument": name})
}
