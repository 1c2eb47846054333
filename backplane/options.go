// This file holds the options of the package's constructors.

package backplane

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"
)

// Option configures [NewTaskStore], [NewEvents], [NewCatalog] and
// [NewClusterView].
type Option interface{ apply(*config) error }

// DefaultName is the name given with [WithName] unless another is.
const DefaultName = "snodo"

// config is what the options set.
type config struct {
	name      string
	logger    *slog.Logger
	localOnly bool
	lease     time.Duration
}

func newConfig(opts []Option) (config, error) {
	c := config{name: DefaultName, logger: slog.Default(), lease: DefaultLease}
	for _, o := range opts {
		if o == nil {
			return config{}, errors.New("backplane: nil option")
		}
		if err := o.apply(&c); err != nil {
			return config{}, err
		}
	}
	return c, nil
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// validName is what a bucket name and a subject token may both be.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// WithName names the deployment whose instances share state: the task
// store's bucket is KV_<name>-tasks. Every instance of one server uses the
// same name; two servers sharing one NATS account use different ones. The
// name is 1 to 64 letters, digits, '-' or '_'. Default [DefaultName].
func WithName(name string) Option {
	return optionFunc(func(c *config) error {
		if !validName.MatchString(name) {
			return fmt.Errorf("backplane: WithName: %q is not 1 to 64 letters, digits, '-' or '_'", name)
		}
		c.name = name
		return nil
	})
}

// WithLogger is where a constructor's values log what they cannot do
// (a catalog change naming a component this instance does not know).
// Default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		if l == nil {
			return errors.New("backplane: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	})
}

// WithLocalOnlyStart lets a constructor start while its NATS connection
// is not connected yet (dialled with nats.RetryOnFailedConnect(true), the
// server unreachable), instead of failing with [ErrUnavailable]; a nil or
// closed connection still fails. The instance serves on its own and joins
// the others once the connection comes up:
//
//   - [NewEvents]: events reach this instance's listeners only (the NATS
//     client buffers what it sends, up to nats.ReconnectBufSize); at the
//     first connection the listeners are resynchronised as after a
//     reconnection, and from then on events cross instances.
//   - [NewCatalog]: the registry holds only the Runtime's static
//     components, [Catalog.Add] and [Catalog.Remove] fail with
//     ErrUnavailable; at the first connection the catalog reads the
//     bucket and applies every present component, in order.
//   - [NewTaskStore]: there is no local task store, since a task kept on
//     one instance could not be read through the others behind a load
//     balancer: every call fails, wrapping ErrUnavailable, until the
//     connection is up; the first call after that opens the bucket.
//   - [NewClusterView]: [ClusterView.Trees] returns this instance's tree
//     only; the view answers and announces itself once connected.
//
// Default: off, the constructors fail at once.
func WithLocalOnlyStart() Option {
	return optionFunc(func(c *config) error {
		c.localOnly = true
		return nil
	})
}

// mayStartLocal reports whether a constructor given this config may start
// without NATS on nc: the option is set and nc may still connect.
func (c config) mayStartLocal(nc *nats.Conn) bool {
	return c.localOnly && nc != nil && !nc.IsClosed()
}

// DefaultLease is the lease given with [WithLease] unless another is.
const DefaultLease = 10 * time.Second

// WithLease sets how long a task runner's lease outlives its last renewal
// in the task store ([NewTaskStore]): each runner renews its lease every
// third of it, and an instance whose lease lapsed (killed, or cut off
// from NATS for that long) has its working tasks settled by another live
// instance as after a restart, within one and a half leases. A shorter
// lease notices a dead instance sooner; a longer one survives longer NATS
// outages. It is at least one second (the granularity of per-key TTLs).
// Default [DefaultLease] (10 s).
func WithLease(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d < time.Second {
			return fmt.Errorf("backplane: WithLease: %v is shorter than a second", d)
		}
		c.lease = d
		return nil
	})
}
