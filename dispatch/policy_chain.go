// Building and running a component's chain: its middleware around its
// policies around its handler, built once per component on first use.

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/mcp"
)

// componentPolicy is what a registered component holds of its policies:
// its own options, and the chain built from them and the Runtime's
// defaults the first time it is called.
type componentPolicy struct {
	own   *policyConfig // nil: none of its own
	once  sync.Once
	chain *policyChain // nil: nothing to apply
	// completeOnce and completeChain are the chain of the component's
	// completions (policy_completion.go).
	completeOnce  sync.Once
	completeChain *policyChain
}

// policyChain is one component's built policies and middleware.
type policyChain struct {
	kind    ComponentKind
	name    string
	method  string
	subject string // what refusals name: "tool x", "completions of prompt y"
	timeout time.Duration
	conc    *concurrencyLimiter
	rate    *rateLimiter
	rateKey func(context.Context, *RequestInfo) any
	sink    instrumentation.Sink
	// middleware counts the middleware wrapping the handler.
	middleware int
	// run is the whole chain: middleware, then policies, then the
	// handler.
	run InvocationHandler
}

// chain returns the component's chain, building it on first use, or nil
// when neither the component nor the Runtime sets any policy. handler is
// called only to build it.
func (p *componentPolicy) get(rt *Runtime, kind ComponentKind, name string, handler func() InvocationHandler) *policyChain {
	if p.own == nil && rt.policies == nil {
		return nil
	}
	p.once.Do(func() {
		cfg := p.own.merged(rt.policies)
		if cfg.empty() {
			return
		}
		p.chain = newPolicyChain(cfg, kind, name, handler(), rt.sink)
	})
	return p.chain
}

func newPolicyChain(cfg *policyConfig, kind ComponentKind, name string, handler InvocationHandler, sink instrumentation.Sink) *policyChain {
	c := &policyChain{kind: kind, name: name, method: methodOfKind(kind), subject: kindNoun(kind) + " " + name,
		timeout: cfg.timeout, sink: sink, middleware: len(cfg.middleware)}
	if cfg.concurrency != nil {
		c.conc = newConcurrencyLimiter(*cfg.concurrency)
	}
	if cfg.rate != nil {
		c.rate = newRateLimiter(*cfg.rate, cfg.now)
		c.rateKey = cfg.rate.Key
		if c.rateKey == nil {
			c.rateKey = principalKey
		}
	}
	run := handler
	if c.conc != nil || c.rate != nil || c.timeout > 0 {
		run = c.policies(handler)
	}
	for i := len(cfg.middleware) - 1; i >= 0; i-- {
		run = cfg.middleware[i](run)
	}
	c.run = run
	return c
}

func methodOfKind(k ComponentKind) string {
	switch k {
	case KindTool:
		return "tools/call"
	case KindPrompt:
		return "prompts/get"
	}
	return "resources/read"
}

// policies returns next behind the rate limit, the concurrency limit and
// the timeout, in that order.
func (c *policyChain) policies(next InvocationHandler) InvocationHandler {
	return func(ctx context.Context, inv *Invocation) (any, error) {
		var refund func() // gives the rate limit's token back
		if c.rate != nil {
			var retry time.Duration
			var ok, keys bool
			retry, ok, keys, refund = c.rate.take(c.rateKey(ctx, inv.Info))
			if !ok {
				reason := "rate"
				if keys {
					reason = "keys"
				}
				c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyRefused, Policy: "rate", Reason: reason, RetryAfter: retry})
				return nil, rateLimited(c.subject, &c.rate.limit, retry, keys)
			}
			c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyAdmitted, Policy: "rate"})
		}
		if c.conc != nil {
			var onWait func(int, int)
			if c.sink != nil {
				onWait = func(running, waiting int) {
					c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyWaiting, Policy: "concurrency", Running: running, Waiting: waiting})
				}
			}
			outcome, waited := c.conc.acquire(ctx, onWait)
			switch outcome {
			case placeRefused:
				retry := c.conc.retryAfter()
				if c.sink != nil {
					running, waiting := c.conc.counts()
					c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyRefused, Policy: "concurrency", Reason: "queue_full",
						RetryAfter: retry, Running: running, Waiting: waiting})
				}
				if refund != nil {
					refund() // the call did not run: its token is not spent
				}
				return nil, busy(c.subject, &c.conc.limit, retry)
			case placeCancelled:
				if c.sink != nil {
					running, waiting := c.conc.counts()
					c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyCancelled, Policy: "concurrency", Wait: waited, Running: running, Waiting: waiting})
				}
				return nil, ctx.Err()
			}
			if c.sink != nil {
				running, waiting := c.conc.counts()
				c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyAdmitted, Policy: "concurrency", Wait: waited, Running: running, Waiting: waiting})
			}
			start := time.Now()
			defer func() { c.conc.release(time.Since(start)) }()
		}
		if c.timeout <= 0 {
			return next(ctx, inv)
		}
		tctx, cancel := context.WithTimeoutCause(ctx, c.timeout, ErrCallTimeout)
		defer cancel()
		res, err := next(tctx, inv)
		if ctx.Err() == nil && errors.Is(context.Cause(tctx), ErrCallTimeout) { // mutation: policy-answers-timeout
			c.emit(instrumentation.PolicyEvent{Kind: instrumentation.PolicyTimedOut, Policy: "timeout"})
			return nil, callTimedOut(c.subject, c.timeout)
		}
		return res, err
	}
}

// emit completes e with the component and sends it, when there is a sink.
func (c *policyChain) emit(e instrumentation.PolicyEvent) {
	if c.sink == nil {
		return
	}
	e.Method, e.Component = c.method, c.name
	c.sink.Policy(e)
}

// errWrongResult is a middleware's result of the wrong type.
func errWrongResult(kind ComponentKind, got any) error {
	return &serverError{what: "middleware", err: fmt.Errorf("a %s handler's result is %T", kindNoun(kind), got)}
}

// callTool runs a tool's handler through its chain, if it has one.
func (rt *Runtime) callTool(ctx context.Context, e *toolEntry, req *CallToolRequest) (*mcp.CallToolResult, error) {
	c := e.policy.get(rt, KindTool, e.tool.Name, func() InvocationHandler { return e.invoke })
	if c == nil {
		return e.handler(ctx, req)
	}
	out, err := c.run(ctx, &Invocation{Kind: KindTool, Name: e.tool.Name, Info: req.Info, Request: req})
	if out == nil {
		return nil, err
	}
	res, ok := out.(*mcp.CallToolResult)
	if !ok {
		return nil, errWrongResult(KindTool, out)
	}
	return res, err
}

func (e *toolEntry) invoke(ctx context.Context, inv *Invocation) (any, error) {
	r, ok := inv.Request.(*CallToolRequest)
	if !ok {
		return nil, errWrongRequest(KindTool, inv.Request)
	}
	return e.handler(ctx, r)
}

// callPrompt runs a prompt's handler through its chain, if it has one.
func (rt *Runtime) callPrompt(ctx context.Context, e *promptEntry, req *GetPromptRequest) (*mcp.GetPromptResult, error) {
	c := e.policy.get(rt, KindPrompt, e.prompt.Name, func() InvocationHandler { return e.invoke })
	if c == nil {
		return e.handler(ctx, req)
	}
	out, err := c.run(ctx, &Invocation{Kind: KindPrompt, Name: e.prompt.Name, Info: req.Info, Request: req})
	if out == nil {
		return nil, err
	}
	res, ok := out.(*mcp.GetPromptResult)
	if !ok {
		return nil, errWrongResult(KindPrompt, out)
	}
	return res, err
}

func (e *promptEntry) invoke(ctx context.Context, inv *Invocation) (any, error) {
	r, ok := inv.Request.(*GetPromptRequest)
	if !ok {
		return nil, errWrongRequest(KindPrompt, inv.Request)
	}
	return e.handler(ctx, r)
}

// callResource runs a resource's or template's handler through its
// chain, if it has one.
func (rt *Runtime) callResource(ctx context.Context, p *componentPolicy, kind ComponentKind, name string, h ResourceHandler, req *ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c := p.get(rt, kind, name, func() InvocationHandler { return resourceInvoker(h) })
	if c == nil {
		return h(ctx, req)
	}
	out, err := c.run(ctx, &Invocation{Kind: kind, Name: name, Info: req.Info, Request: req})
	if out == nil {
		return nil, err
	}
	res, ok := out.(*mcp.ReadResourceResult)
	if !ok {
		return nil, errWrongResult(kind, out)
	}
	return res, err
}

func resourceInvoker(h ResourceHandler) InvocationHandler {
	return func(ctx context.Context, inv *Invocation) (any, error) {
		r, ok := inv.Request.(*ReadResourceRequest)
		if !ok {
			return nil, errWrongRequest(KindResource, inv.Request)
		}
		return h(ctx, r)
	}
}

func errWrongRequest(kind ComponentKind, got any) error {
	return &serverError{what: "middleware", err: fmt.Errorf("a %s handler's request is %T", kindNoun(kind), got)}
}
