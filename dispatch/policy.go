// Component policies: the options that bound the calls of one tool,
// resource, template or prompt (a timeout, a concurrency limit with a
// bounded wait, a rate limit per key) and wrap its handler (middleware),
// and the server-wide defaults.

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
)

// PolicyOption sets a policy or a middleware of a component. Given to a
// registration ([WithTool], [WithTypedTool], [WithResource],
// [WithResourceTemplate], [WithPrompt] and a hub registry's Add methods)
// it applies to that component; given to [WithComponentPolicies] it
// applies to every tool, resource, template and prompt of the Runtime.
//
// A call passes through, outermost first: the server's middleware (in
// the order given), the component's own middleware (in the order given),
// the rate limit, the concurrency limit, the timeout, and the handler.
// So middleware sees every call, refused ones included, and may answer
// one (from a cache) without spending a token or taking a place; the
// timeout counts only the handler's own run. Everything here runs after
// the call was authorized and its arguments validated.
type PolicyOption interface {
	ComponentOption
	applyPolicy(*policyConfig) error
}

// policyConfig is what PolicyOptions collect for one component or for the
// server.
type policyConfig struct {
	timeout     time.Duration // 0: none
	concurrency *ConcurrencyLimit
	rate        *RateLimit
	middleware  []Middleware
	now         func() time.Time // the rate limiter's clock; nil: time.Now
	// without marks the server defaults a component opted out of
	// (policy_optout.go).
	without optOuts
}

// merged returns the policies of a component whose own are c, under the
// server's defaults d: the component's timeout, concurrency limit and
// rate limit replace the server's, and its middleware runs inside the
// server's.
func (c *policyConfig) merged(d *policyConfig) *policyConfig {
	var out policyConfig
	if d != nil {
		out = *d
		out.middleware = append([]Middleware(nil), d.middleware...)
	}
	if c == nil {
		return &out
	}
	if c.without.timeout {
		out.timeout = 0
	}
	if c.without.concurrency {
		out.concurrency = nil
	}
	if c.without.rate {
		out.rate = nil
	}
	if c.timeout > 0 {
		out.timeout = c.timeout
	}
	if c.concurrency != nil {
		out.concurrency = c.concurrency
	}
	if c.rate != nil {
		out.rate = c.rate
	}
	if c.now != nil {
		out.now = c.now
	}
	out.middleware = append(out.middleware, c.middleware...)
	return &out
}

// empty reports whether c sets nothing.
func (c *policyConfig) empty() bool {
	return c.timeout == 0 && c.concurrency == nil && c.rate == nil && len(c.middleware) == 0
}

// policyOption is a PolicyOption; name is its function's, for errors.
type policyOption struct {
	name  string
	apply func(*policyConfig) error
}

func (o policyOption) applyPolicy(c *policyConfig) error {
	if err := o.apply(c); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

func (o policyOption) applyComponent(c *componentConfig) error {
	if c.policy == nil {
		c.policy = &policyConfig{}
	}
	return o.applyPolicy(c.policy)
}

// WithCallTimeout bounds each run of the component's handler to d,
// counted from when its policies admitted it (after any wait for a
// place). A handler still running at d has its context cancelled with
// [ErrCallTimeout] as the cause, and the call is answered with
// [CodeCallTimedOut] when the handler returns (a handler that ignores its
// context is still bounded by the executor's request timeout). The
// default is no timeout of the component's own.
//
// Given to one component, WithCallTimeout(0) runs it with no call
// timeout, whatever timeout [WithComponentPolicies] gives the server's
// components (a tool that streams for as long as its client listens,
// say); it cannot be given with a timeout to the same component, nor to
// WithComponentPolicies.
func WithCallTimeout(d time.Duration) PolicyOption {
	return policyOption{"WithCallTimeout", func(c *policyConfig) error {
		if d == 0 {
			return optOutTimeout(c)
		}
		if d < 0 {
			return errors.New("the timeout must not be negative")
		}
		if c.without.timeout {
			return errOptOutAndOwn
		}
		c.timeout = d
		return nil
	}}
}

// ConcurrencyLimit bounds the calls of a component running at once.
type ConcurrencyLimit struct {
	// Max is the most calls running at once. It must be at least 1.
	Max int
	// MaxWaiting is the most calls waiting, in FIFO order, for one of
	// them to end; a call beyond it is refused at once with [CodeBusy].
	// A waiting call gives its executor slot back while it waits (other
	// work runs in it) and takes one again, ahead of work not yet
	// started, when its turn comes; cancelling it ends its wait at once.
	// Default Max; negative means no call waits.
	MaxWaiting int
}

// WithConcurrencyLimit bounds the calls of the component running at once
// (see [ConcurrencyLimit]). Given to [WithComponentPolicies], each
// component gets a limit of its own with these bounds.
//
// Given to one component, the zero ConcurrencyLimit runs it with no
// concurrency limit, whatever limit WithComponentPolicies gives the
// server's components; it cannot be given with a limit to the same
// component, nor to WithComponentPolicies.
func WithConcurrencyLimit(l ConcurrencyLimit) PolicyOption {
	return policyOption{"WithConcurrencyLimit", func(c *policyConfig) error {
		if l == (ConcurrencyLimit{}) {
			return optOutConcurrency(c)
		}
		if l.Max < 1 {
			return errors.New("a concurrency limit needs Max at least 1")
		}
		if c.without.concurrency {
			return errOptOutAndOwn
		}
		switch {
		case l.MaxWaiting == 0:
			l.MaxWaiting = l.Max
		case l.MaxWaiting < 0:
			l.MaxWaiting = 0
		}
		c.concurrency = &l
		return nil
	}}
}

// RateLimit is a token bucket per key: each key may make Burst calls at
// once and Rate calls per second on average. A call finding its bucket
// empty is refused at once with [CodeRateLimited], saying when a token
// will be there. A call the concurrency limit then refuses gives its
// token back.
type RateLimit struct {
	// Rate is the calls per second each key earns (rate.Every(d) for one
	// call per d). It must be positive and finite.
	Rate rate.Limit
	// Burst is the most calls a key may make at once. Default 1.
	Burst int
	// Key returns the bucket a call draws from; the value must be
	// comparable (a string, a number, a struct of those). Default: the
	// request's principal, by its PrincipalID when it is an
	// [IdentifiedPrincipal] (so a refreshed token is the same key), else
	// by its value; calls without a principal share one bucket.
	Key func(ctx context.Context, info *RequestInfo) any
	// MaxKeys bounds the buckets held. A bucket is forgotten once it
	// would be full again (Burst/Rate after the key's last call, when
	// forgetting it changes nothing); a call with a new key while MaxKeys
	// buckets are held and none can be forgotten is refused with
	// [CodeRateLimited] until the least recently used one can. Default
	// 10,000.
	MaxKeys int
}

// WithRateLimit limits the calls of the component per key (see
// [RateLimit]). Given to [WithComponentPolicies], each component gets
// buckets of its own with these bounds.
//
// Given to one component, the zero RateLimit runs it with no rate limit,
// whatever limit WithComponentPolicies gives the server's components (a
// health check that must always answer, say); it cannot be given with a
// limit to the same component, nor to WithComponentPolicies.
func WithRateLimit(l RateLimit) PolicyOption {
	return policyOption{"WithRateLimit", func(c *policyConfig) error {
		if l.Rate == 0 && l.Burst == 0 && l.Key == nil && l.MaxKeys == 0 {
			return optOutRate(c)
		}
		if !(l.Rate > 0) || l.Rate == rate.Inf {
			return errors.New("a rate limit needs a positive, finite Rate")
		}
		if l.Burst < 0 || l.MaxKeys < 0 {
			return errors.New("a rate limit's Burst and MaxKeys must not be negative")
		}
		if c.without.rate {
			return errOptOutAndOwn
		}
		if l.Burst == 0 {
			l.Burst = 1
		}
		if l.MaxKeys == 0 {
			l.MaxKeys = 10000
		}
		c.rate = &l
		return nil
	}}
}

// WithMiddleware wraps the component's handler in m (see [Middleware]).
// A call passes through the server's middleware ([WithComponentPolicies])
// in the order given, then the component's own in the order given, then
// the rate limit, the concurrency limit, the timeout and the handler: so
// m sees refused calls too, and a result m returns without calling next
// spends no token and takes no place.
func WithMiddleware(m Middleware) PolicyOption {
	return policyOption{"WithMiddleware", func(c *policyConfig) error {
		if m == nil {
			return errors.New("nil middleware")
		}
		c.middleware = append(c.middleware, m)
		return nil
	}}
}

// WithComponentPolicies applies opts to every tool, resource, template
// and prompt of the Runtime, those its [Catalog] gains later included: each
// component gets its own limits with these bounds, unless it sets a
// limit of the same kind itself, which replaces the server's, or opts
// out of it (the zero [WithCallTimeout], [WithConcurrencyLimit] or
// [WithRateLimit]); the server's middleware wraps the component's. A component held by a
// Catalog shared by several Runtimes takes the defaults of the first
// that calls it. Given more than once, the later options add to the
// earlier ones.
func WithComponentPolicies(opts ...PolicyOption) Option {
	return optionFunc(func(b *builder) error {
		if b.rt.policies == nil {
			b.rt.policies = &policyConfig{}
		}
		for _, o := range opts {
			if o == nil {
				return errors.New("dispatch: WithComponentPolicies: nil option")
			}
			if err := o.applyPolicy(b.rt.policies); err != nil {
				return fmt.Errorf("dispatch: WithComponentPolicies: %w", err)
			}
			if b.rt.policies.without != (optOuts{}) {
				return errors.New("dispatch: WithComponentPolicies: an opt-out (the zero WithCallTimeout, WithConcurrencyLimit or WithRateLimit) applies to one component, not to the server")
			}
		}
		return nil
	})
}
