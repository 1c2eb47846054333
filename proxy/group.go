// Group: a bounded set of backends, mounted together in one Runtime.

package proxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
)

// DefaultMaxBackends is the most backends a Group holds unless its
// GroupLimits say otherwise.
const DefaultMaxBackends = 16

// ErrTooManyBackends is what Group.Dial returns past MaxBackends.
var ErrTooManyBackends = errors.New("proxy: too many backends")

// GroupLimits bound a Group. A zero field keeps its default.
type GroupLimits struct {
	// MaxBackends is the most backends the group holds. Default 16.
	MaxBackends int
}

// Group holds the backends of one gateway, each under the prefix it is
// mounted with. Its methods are safe for concurrent use.
type Group struct {
	max int

	mu       sync.Mutex
	backends []*Backend
	prefixes []string
}

// NewGroup returns an empty group bounded by l.
func NewGroup(l GroupLimits) *Group {
	if l.MaxBackends <= 0 {
		l.MaxBackends = DefaultMaxBackends
	}
	return &Group{max: l.MaxBackends}
}

// Dial dials a backend (see [Dial]) and adds it to the group under
// prefix. Past MaxBackends it fails with [ErrTooManyBackends] before
// connecting; a prefix used twice fails too.
func (g *Group) Dial(ctx context.Context, prefix string, t client.Transport, opts ...Option) (*Backend, error) {
	g.mu.Lock()
	if len(g.backends) >= g.max {
		g.mu.Unlock()
		return nil, fmt.Errorf("%w (MaxBackends %d)", ErrTooManyBackends, g.max)
	}
	for _, p := range g.prefixes {
		if p == prefix {
			g.mu.Unlock()
			return nil, fmt.Errorf("proxy: prefix %q used twice", prefix)
		}
	}
	// The place is held while connecting.
	g.backends = append(g.backends, nil)
	g.prefixes = append(g.prefixes, prefix)
	i := len(g.backends) - 1
	g.mu.Unlock()
	b, err := Dial(ctx, t, append([]Option{WithName(prefix)}, opts...)...)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.backends = append(g.backends[:i], g.backends[i+1:]...)
		g.prefixes = append(g.prefixes[:i], g.prefixes[i+1:]...)
		return nil, err
	}
	g.backends[i] = b
	return b, nil
}

// Mounts returns a [dispatch.WithMount] option for each backend dialled,
// to build the gateway's Runtime with.
func (g *Group) Mounts() []dispatch.Option {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []dispatch.Option
	for i, b := range g.backends {
		if b != nil {
			out = append(out, dispatch.WithMount(g.prefixes[i], b.Runtime()))
		}
	}
	return out
}

// Close closes every backend and returns their errors joined.
func (g *Group) Close() error {
	g.mu.Lock()
	backends := g.backends
	g.backends, g.prefixes = nil, nil
	g.mu.Unlock()
	var errs []error
	for _, b := range backends {
		if b != nil {
			errs = append(errs, b.Close())
		}
	}
	return errors.Join(errs...)
}

// Show puts every backend of the group in sup's supervision tree (see
// [Backend.Show]).
func (g *Group) Show(sup *supervisor.Supervisor) error {
	g.mu.Lock()
	backends := slices.Clone(g.backends)
	g.mu.Unlock()
	var errs []error
	for _, b := range backends {
		if b != nil {
			errs = append(errs, b.Show(sup))
		}
	}
	return errors.Join(errs...)
}
