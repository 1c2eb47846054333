package supervisor

// The options of the debug handler: the bounds of its page and event
// streams, and the actions it may offer.

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// PageLimits bound what the debug handler's page costs the server. A
// zero field takes its default.
type PageLimits struct {
	// Interval is the shortest time between two snapshots of the tree
	// taken for the page's event streams, counted from the end of the
	// previous one: every open stream shares each snapshot, so a page
	// sees at most one update per Interval however busy the server is.
	// Default 500 ms (at most two updates a second).
	Interval time.Duration
	// Refresh is the longest time between two updates while a stream is
	// open. Between refreshes a snapshot is taken only when the
	// executor's counts have moved (a request admitted, started or
	// ended, a subscription stream opened or closed); other changes
	// (ages, a connection with no request, a task's status) show at the
	// next refresh. Default 5 s.
	Refresh time.Duration
	// MaxStreams is the number of event streams open at once on one
	// handler; one more is refused with 503. Default 4.
	MaxStreams int
	// MaxStreamAge ends a stream after this long; the page's script
	// reconnects at once, so a server shutting down waits for no stream
	// longer than this. Default 5 min.
	MaxStreamAge time.Duration
	// MaxChildren is the number of children shown under one node; the
	// rest are counted by kind. Children are shown oldest first (by
	// their age attribute), nodes without an age before them. Default
	// 50.
	MaxChildren int
	// MaxNodes is the number of nodes one view shows in all, filled
	// breadth first (every level before the one below it); the rest
	// are counted under their parents. Default 500.
	MaxNodes int
}

// Defaults of the zero PageLimits fields, stated on the fields.
const (
	defaultPageInterval     = 500 * time.Millisecond
	defaultPageRefresh      = 5 * time.Second
	defaultPageMaxStreams   = 4
	defaultPageMaxStreamAge = 5 * time.Minute
	defaultPageMaxChildren  = 50
	defaultPageMaxNodes     = 500
)

type handlerConfig struct {
	limits    PageLimits
	authorize func(*http.Request) error // nil: read-only
}

// HandlerOption configures [Supervisor.DebugHandler]. An invalid option
// makes DebugHandler fail, naming the option.
type HandlerOption interface {
	applyHandler(*handlerConfig) error
}

type handlerOption struct {
	name  string
	apply func(*handlerConfig) error
}

func (o handlerOption) applyHandler(c *handlerConfig) error {
	if err := o.apply(c); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// WithPageLimits sets the bounds of the debug page and its event
// streams; see [PageLimits] for each bound and its default.
func WithPageLimits(l PageLimits) HandlerOption {
	return handlerOption{"WithPageLimits", func(c *handlerConfig) error {
		if l.Interval < 0 || l.Refresh < 0 || l.MaxStreams < 0 || l.MaxStreamAge < 0 || l.MaxChildren < 0 || l.MaxNodes < 0 {
			return errors.New("limits must not be negative")
		}
		c.limits = l
		return nil
	}}
}

// WithActions turns on the page's actions: cancelling a request on a
// byte-stream connection (as the client's notifications/cancelled
// would) and stopping a connection. Each is a POST to the handler's
// path (form fields action and id); authorize runs first and a non-nil
// error refuses the action with 403, as does an Origin header that does
// not name the request's own host. Without this option the handler is
// read-only and refuses POST with 405.
func WithActions(authorize func(*http.Request) error) HandlerOption {
	return handlerOption{"WithActions", func(c *handlerConfig) error {
		if authorize == nil {
			return errors.New("nil authorize")
		}
		c.authorize = authorize
		return nil
	}}
}

func (l PageLimits) withDefaults() PageLimits {
	set := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	setD(&l.Interval, defaultPageInterval)
	setD(&l.Refresh, defaultPageRefresh)
	setD(&l.MaxStreamAge, defaultPageMaxStreamAge)
	set(&l.MaxStreams, defaultPageMaxStreams)
	set(&l.MaxChildren, defaultPageMaxChildren)
	set(&l.MaxNodes, defaultPageMaxNodes)
	return l
}
