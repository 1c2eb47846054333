// Opting one component out of the server-wide policy defaults
// (WithComponentPolicies): without its timeout, concurrency limit or rate
// limit.

package dispatch

import "errors"

// optOuts marks the server defaults one component does without.
type optOuts struct {
	timeout, concurrency, rate bool
}

// errOptOutAndOwn is a component given both a limit and the opt-out of
// the same kind.
var errOptOutAndOwn = errors.New("a component cannot both set a limit and do without one of the same kind")

// WithoutCallTimeout runs the component with no call timeout, whatever
// timeout [WithComponentPolicies] gives the server's components (a tool
// that streams for as long as its client listens, say). It applies to one
// component only: given to WithComponentPolicies it fails New, and given
// with [WithCallTimeout] to the same component it fails the
// registration.
func WithoutCallTimeout() PolicyOption {
	return policyOption{"WithoutCallTimeout", func(c *policyConfig) error {
		if c.timeout > 0 {
			return errOptOutAndOwn
		}
		c.without.timeout = true
		return nil
	}}
}

// WithoutConcurrencyLimit runs the component with no concurrency limit,
// whatever limit [WithComponentPolicies] gives the server's components.
// It applies to one component only, as [WithoutCallTimeout] does, and
// cannot be given with [WithConcurrencyLimit].
func WithoutConcurrencyLimit() PolicyOption {
	return policyOption{"WithoutConcurrencyLimit", func(c *policyConfig) error {
		if c.concurrency != nil {
			return errOptOutAndOwn
		}
		c.without.concurrency = true
		return nil
	}}
}

// WithoutRateLimit runs the component with no rate limit, whatever limit
// [WithComponentPolicies] gives the server's components (a health check
// that must always answer, say). It applies to one component only, as
// [WithoutCallTimeout] does, and cannot be given with [WithRateLimit].
func WithoutRateLimit() PolicyOption {
	return policyOption{"WithoutRateLimit", func(c *policyConfig) error {
		if c.rate != nil {
			return errOptOutAndOwn
		}
		c.without.rate = true
		return nil
	}}
}
