// This file gives the external tests (package dispatch_test) the
// unexported names they check.

package dispatch

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

const (
	MaxInputRounds      = maxInputRounds
	MaxRequestStateSize = maxRequestStateSize
)

type ClientError = clientError

func WithClock(now func() time.Time) Option { return withClock(now) }

func ContextWithDrain(ctx context.Context, ch <-chan struct{}) context.Context {
	return contextWithDrain(ctx, ch)
}

func (s *Session) ClientCapabilities() mcp.ClientCapabilities { return s.clientCapabilities() }
func (s *Session) ClientInfo() *mcp.Implementation            { return s.clientInfo() }
func (s *Session) Initialized() bool                          { return s.isInitialized() }
func (s *Session) LogLevel() string                           { return s.currentLogLevel() }
func (s *Session) Outstanding() int                           { return s.outstanding() }
func (s *Session) Subscriptions() []string                    { return s.subscriptions() }
func (rt *Runtime) ProtocolVersions() []string                { return rt.protocolVersions() }

// WithPolicyClock sets the clock of the component's rate limiter, so
// tests move time instead of sleeping.
func WithPolicyClock(now func() time.Time) PolicyOption {
	return policyOption{"WithPolicyClock", func(c *policyConfig) error { c.now = now; return nil }}
}

// MetaCacheLen is the number of _meta objects rt remembers.
func (rt *Runtime) MetaCacheLen() int {
	if m := rt.metaCache.m.Load(); m != nil {
		return len(*m)
	}
	return 0
}

const MetaCacheEntries = metaCacheEntries
