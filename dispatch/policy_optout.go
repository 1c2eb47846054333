// Opting one component out of the server-wide policy defaults
// (WithComponentPolicies): the zero timeout, concurrency limit or rate
// limit given to one component.

package dispatch

import "errors"

// optOuts marks the server defaults one component does without.
type optOuts struct {
	timeout, concurrency, rate bool
}

// errOptOutAndOwn is a component given both a limit and the opt-out of
// the same kind.
var errOptOutAndOwn = errors.New("a component cannot both set a limit and do without one of the same kind")

// optOutTimeout is WithCallTimeout(0).
func optOutTimeout(c *policyConfig) error {
	if c.timeout > 0 {
		return errOptOutAndOwn
	}
	c.without.timeout = true
	return nil
}

// optOutConcurrency is WithConcurrencyLimit(ConcurrencyLimit{}).
func optOutConcurrency(c *policyConfig) error {
	if c.concurrency != nil {
		return errOptOutAndOwn
	}
	c.without.concurrency = true
	return nil
}

// optOutRate is WithRateLimit(RateLimit{}).
func optOutRate(c *policyConfig) error {
	if c.rate != nil {
		return errOptOutAndOwn
	}
	c.without.rate = true
	return nil
}
