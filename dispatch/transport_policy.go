// Transport-author API: the current use of every component policy, for
// the supervision tree (package supervisor shows it).

package dispatch

import (
	"time"

	"golang.org/x/time/rate"
)

// PolicyUse is one limited component's policies and their current use.
type PolicyUse struct {
	// Kind and Name identify the component (Name: the tool's or prompt's
	// name, the resource's URI or the template's URI template).
	Kind ComponentKind
	// Name is the component's name, URI or URI template.
	Name string
	// Method is the JSON-RPC method that calls it.
	Method string
	// Timeout is the component's call timeout; 0 for none.
	Timeout time.Duration
	// MaxConcurrent and MaxWaiting are the concurrency limit's bounds (0
	// without one); Running and Waiting its current counts.
	MaxConcurrent, MaxWaiting, Running, Waiting int
	// Rate is the rate limit's calls per second per key (0 without one).
	Rate rate.Limit
	// Burst is the rate limit's calls at once per key.
	Burst int
	// Keys is the number of buckets the rate limit holds now.
	Keys int
	// MaxKeys is the most buckets it may hold.
	MaxKeys int
	// Admitted, Waited and Refused are totals since the policy was
	// built: calls let through, calls that had to wait for a place
	// first, and calls refused (by either limit).
	Admitted, Waited, Refused int64
	// Middleware is the number of middleware wrapping the handler.
	Middleware int
}

// Policies returns the use of the policies of every component the
// Runtime serves now that has a timeout, a concurrency limit or a rate
// limit, tools first, then prompts, resources and templates, each in
// name order. A component never called yet is reported too, with its
// policies built.
func (rt *Runtime) Policies() []PolicyUse {
	if rt.policies == nil && !rt.hasOwnPolicies() {
		return nil
	}
	snap := rt.catalog.snapshot()
	var out []PolicyUse
	add := func(c *policyChain) {
		if u, ok := c.use(); ok {
			out = append(out, u)
		}
	}
	for _, e := range snap.toolList {
		if c := e.policy.get(rt, KindTool, e.tool.Name, func() InvocationHandler { return e.invoke }); c != nil {
			add(c)
		}
	}
	for _, e := range snap.promptList {
		if c := e.policy.get(rt, KindPrompt, e.prompt.Name, func() InvocationHandler { return e.invoke }); c != nil {
			add(c)
		}
	}
	for _, e := range snap.resourceList {
		if c := e.policy.get(rt, KindResource, e.resource.URI, func() InvocationHandler { return resourceInvoker(e.handler) }); c != nil {
			add(c)
		}
	}
	for _, e := range snap.templateList {
		if c := e.policy.get(rt, KindResourceTemplate, e.template.URITemplate, func() InvocationHandler { return resourceInvoker(e.handler) }); c != nil {
			add(c)
		}
	}
	return out
}

// hasOwnPolicies reports whether any component set policies of its own.
func (rt *Runtime) hasOwnPolicies() bool {
	snap := rt.catalog.snapshot()
	for _, e := range snap.toolList {
		if e.policy.own != nil {
			return true
		}
	}
	for _, e := range snap.promptList {
		if e.policy.own != nil {
			return true
		}
	}
	for _, e := range snap.resourceList {
		if e.policy.own != nil {
			return true
		}
	}
	for _, e := range snap.templateList {
		if e.policy.own != nil {
			return true
		}
	}
	return false
}

// use reports the chain's policies and their counts; false when it has
// middleware only.
func (c *policyChain) use() (PolicyUse, bool) {
	if c.conc == nil && c.rate == nil && c.timeout == 0 {
		return PolicyUse{}, false
	}
	u := PolicyUse{Kind: c.kind, Name: c.name, Method: c.method, Timeout: c.timeout, Middleware: c.middleware}
	if c.conc != nil {
		u.MaxConcurrent, u.MaxWaiting = c.conc.limit.Max, c.conc.limit.MaxWaiting
		u.Running, u.Waiting = c.conc.counts()
		u.Admitted, u.Waited, u.Refused = c.conc.admitted.Load(), c.conc.waited.Load(), c.conc.refused.Load()
	}
	if c.rate != nil {
		u.Rate, u.Burst, u.MaxKeys = c.rate.limit.Rate, c.rate.limit.Burst, c.rate.limit.MaxKeys
		u.Keys = c.rate.keys()
		u.Refused += c.rate.refused.Load()
		if c.conc == nil {
			u.Admitted = c.rate.admitted.Load()
		}
	}
	return u, true
}
