// The policies of completions: completion/complete for a prompt argument
// or a template variable runs under the policies of that prompt or
// template.

package dispatch

import (
	"context"

	"github.com/snodo-go/snodo/mcp"
)

// Completions and policies. A completion handler of a prompt or template
// runs under that component's timeout, and under a concurrency limit and
// a rate limit with the bounds of the component's own (or of the server
// defaults it takes, less those it opts out of), but with places and
// buckets of their own: completions come at the pace of typing, and
// must neither take the places or tokens of the component's calls nor
// be starved by them. Refusals name "completions of prompt NAME" (or of
// resource template URI-TEMPLATE), with the usual codes and data. The
// server's and the component's middleware do not see completions (an
// Invocation's Request is one of the three call kinds), and
// [Runtime.Policies] lists the calls' policies only.

// completionCall is the Request of a completion's Invocation, which
// only the completion chain sees.
type completionCall struct {
	h   CompletionHandler
	req *CompleteRequest
}

func invokeCompletion(ctx context.Context, inv *Invocation) (any, error) {
	cc := inv.Request.(*completionCall)
	return cc.h(ctx, cc.req)
}

// completion returns the chain of the component's completions, building
// it on first use, or nil when there is no limit to apply.
func (p *componentPolicy) completion(rt *Runtime, kind ComponentKind, name string) *policyChain {
	if p.own == nil && rt.policies == nil {
		return nil
	}
	p.completeOnce.Do(func() {
		cfg := p.own.merged(rt.policies)
		cfg.middleware = nil
		if cfg.empty() {
			return
		}
		c := newPolicyChain(cfg, kind, name, invokeCompletion, rt.sink)
		c.method = "completion/complete"
		c.subject = "completions of " + kindNoun(kind) + " " + name
		p.completeChain = c
	})
	return p.completeChain
}

// complete runs a completion handler of a prompt or template through the
// component's completion chain, if it has one.
func (rt *Runtime) complete(ctx context.Context, p *componentPolicy, kind ComponentKind, name string, h CompletionHandler, req *CompleteRequest) (*mcp.Completion, error) {
	c := p.completion(rt, kind, name)
	if c == nil {
		return h(ctx, req)
	}
	out, err := c.run(ctx, &Invocation{Kind: kind, Name: name, Info: req.Info, Request: &completionCall{h: h, req: req}})
	res, _ := out.(*mcp.Completion)
	return res, err
}
