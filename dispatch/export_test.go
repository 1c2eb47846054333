package dispatch

import "time"

// WithPolicyClock sets the clock of the component's rate limiter, so
// tests move time instead of sleeping.
func WithPolicyClock(now func() time.Time) PolicyOption {
	return policyOption{"WithPolicyClock", func(c *policyConfig) error { c.now = now; return nil }}
}
