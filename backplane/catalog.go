// This file replicates run-time catalog changes: which of the defined
// tools, prompts, resources and templates are present is kept in a
// JetStream key-value bucket, and every instance applies its changes to
// its own registry, in order, at most once.

package backplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/hub"
)

// ErrUndefined is returned by [Catalog.Add] for a component this instance
// has no definition of.
var ErrUndefined = errors.New("backplane: component not defined")

// startTimeout bounds NewCatalog's first read of the catalog when ctx has
// no deadline.
const startTimeout = 10 * time.Second

// watchRetry is how long the catalog waits before watching the bucket
// again after a watch could not start (the connection is back, but
// JetStream not yet).
const watchRetry = 500 * time.Millisecond

// watchAttempt bounds one attempt to watch the bucket again: a server
// still starting JetStream may not answer at all, and the next attempt
// follows watchRetry later.
const watchAttempt = 2 * time.Second

// Catalog replicates which components are present in the catalog of
// every instance of a server. Handlers are Go code and cannot travel, so
// every instance gives [NewCatalog] the same [Definitions]; the shared
// state, a JetStream key-value bucket KV_<name>-catalog (see [WithName]),
// says which of them are present. [Catalog.Add] and [Catalog.Remove],
// called on any instance, change that state; every instance (the caller
// included) watches the bucket and applies each change to its own
// registry, which then publishes the list change to the instance's own
// hub: every listen stream on every instance hears one list change per
// change.
//
// The catalog version is the bucket's revision. Each revision changes one
// component, and an instance applies revisions in order, each at most
// once, each as one registry change: every request (a list, a call, a
// completion) reads one registry snapshot, which is the catalog at one
// version, never a mix of two. Instances apply a revision at slightly
// different times: a client that heard a list change from one instance
// may still read the previous version through another for that moment;
// [Catalog.Wait] waits until this instance has applied a version.
//
// A change naming a component this instance has no definition of (a
// different build) is not applied here: it is logged at level Warn (see
// [WithLogger]) and counted in [CatalogStats].Undefined, and the instance
// keeps serving the rest. When the NATS connection is lost the registry
// stays as it is; once it is back the catalog reads, in order, every
// entry written since its last version (the bucket keeps each
// component's latest entry, so a component changed twice meanwhile is
// read once, at its latest version).
//
// Components given to dispatch.New (WithTool...) stay static on each
// instance: a name is either static or replicated. Its methods are safe
// for concurrent use; Close it before closing the NATS connection.
type Catalog struct {
	nc   *nats.Conn
	name string // the bucket's
	reg  *hub.Registry
	defs map[Component]definition
	log  *slog.Logger

	status chan nats.Status
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	mu      sync.Mutex
	kv      jetstream.KeyValue // nil until open, see WithLocalOnlyStart
	version uint64
	present map[Component]bool // applied here
	applied chan struct{}      // closed and replaced at each version
	stats   CatalogStats
}

// CatalogStats counts what a Catalog did.
type CatalogStats struct {
	// Version is the last version applied on this instance.
	Version uint64
	// Added and Removed count the components this instance's registry
	// gained and lost through the catalog.
	Added, Removed int64
	// Undefined counts changes that made present a component this
	// instance has no definition of.
	Undefined int64
	// Failed counts definitions the registry refused (a name also given
	// to dispatch.New, a resource a template matches); each is logged.
	Failed int64
	// Invalid counts entries of the bucket that were not catalog entries.
	Invalid int64
	// Rewatches counts the times the catalog watched the bucket again,
	// from the version after its last, after the connection came back (or
	// came up, for a catalog started with WithLocalOnlyStart).
	Rewatches int64
}

// entry is a component's value in the bucket.
type entry struct {
	Present bool `json:"present"`
}

// NewCatalog opens the catalog bucket on nc, applies its present
// components that defs defines to a new registry on h, and keeps
// applying its changes until Close. Give the Runtime
// dispatch.WithCatalog(c.Registry()) and, for listen streams, an Events
// on the same h. It fails, wrapping [ErrUnavailable], when nc cannot
// carry JetStream; and when the first read of the catalog does not end
// before ctx (within 10 s when ctx has no deadline). With
// [WithLocalOnlyStart] it starts instead, and reads the catalog once NATS
// is reachable.
func NewCatalog(ctx context.Context, nc *nats.Conn, h *hub.Hub, defs *Definitions, opts ...Option) (*Catalog, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if h == nil || defs == nil {
		return nil, errors.New("backplane: NewCatalog: nil hub or definitions")
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout)
		defer cancel()
	}
	c := &Catalog{
		nc: nc, name: cfg.name + "-catalog", reg: hub.NewRegistry(h), defs: map[Component]definition{}, log: cfg.logger,
		present: map[Component]bool{}, applied: make(chan struct{}),
	}
	for k, d := range defs.m {
		c.defs[k] = d
	}
	kv, err := c.open(ctx)
	var w jetstream.KeyWatcher
	if err == nil {
		w, err = kv.WatchAll(ctx)
		if err == nil {
			err = c.initial(ctx, w)
		}
		if err != nil {
			err = fmt.Errorf("%w: reading the catalog %s: %w", ErrUnavailable, c.name, err)
		}
	}
	if err != nil {
		if w != nil {
			_ = w.Stop()
		}
		if !errors.Is(err, ErrUnavailable) || !cfg.mayStartLocal(nc) {
			return nil, err
		}
		// WithLocalOnlyStart: run gets the catalog when NATS is reachable.
		c.mu.Lock()
		c.kv = nil
		c.mu.Unlock()
		w = nil
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.status = nc.StatusChanged(nats.CONNECTED, nats.DISCONNECTED, nats.RECONNECTING)
	c.wg.Add(1)
	go c.run(w)
	return c, nil
}

// open opens (or creates) the catalog's bucket and keeps it.
func (c *Catalog) open(ctx context.Context) (jetstream.KeyValue, error) {
	js, err := openJetStream(ctx, c.nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: c.name, Description: "catalog of an MCP server", History: 1, Storage: jetstream.FileStorage,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = js.KeyValue(ctx, c.name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: opening the bucket %s: %w", ErrUnavailable, c.name, err)
	}
	c.mu.Lock()
	c.kv = kv
	c.mu.Unlock()
	return kv, nil
}

// bucket returns the bucket, or ErrUnavailable before it is open.
func (c *Catalog) bucket() (jetstream.KeyValue, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kv == nil {
		return nil, fmt.Errorf("%w: the catalog has not reached NATS yet (started with WithLocalOnlyStart)", ErrUnavailable)
	}
	return c.kv, nil
}

// initial applies the bucket's current entries, up to the watcher's
// marker that they have all been delivered.
func (c *Catalog) initial(ctx context.Context, w jetstream.KeyWatcher) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("the watcher stopped")
			}
			if e == nil {
				return nil
			}
			c.apply(e)
		}
	}
}

// Registry is the registry the catalog changes: give it to the Runtime
// with dispatch.WithCatalog. Change it only through the catalog.
func (c *Catalog) Registry() *hub.Registry { return c.reg }

// Add makes comp present on every instance and returns the version at
// which it is. comp must be defined on this instance ([ErrUndefined]
// otherwise); adding a present component changes nothing and returns
// the version at which it became present.
func (c *Catalog) Add(ctx context.Context, comp Component) (uint64, error) {
	if _, ok := c.defs[comp]; !ok {
		return 0, fmt.Errorf("%w: %v", ErrUndefined, comp)
	}
	return c.set(ctx, comp, true)
}

// Remove makes comp absent on every instance and returns the version at
// which it is; removing an absent component changes nothing and returns
// the version at which it became absent (0 if it never was present).
func (c *Catalog) Remove(ctx context.Context, comp Component) (uint64, error) {
	return c.set(ctx, comp, false)
}

// set writes comp's state with compare-and-set on its revision, so that
// a change that makes no difference adds no version.
func (c *Catalog) set(ctx context.Context, comp Component, present bool) (uint64, error) {
	key, err := comp.key()
	if err != nil {
		return 0, err
	}
	kv, err := c.bucket()
	if err != nil {
		return 0, err
	}
	val, _ := json.Marshal(entry{Present: present})
	for {
		cur, err := kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			if !present {
				return 0, nil
			}
			rev, err := kv.Create(ctx, key, val)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // created meanwhile by another instance
			}
			return rev, wrapWrite(comp, err)
		case err != nil:
			return 0, wrapWrite(comp, err)
		}
		var have entry
		if json.Unmarshal(cur.Value(), &have) == nil && have.Present == present {
			return cur.Revision(), nil
		}
		rev, err := kv.Update(ctx, key, val, cur.Revision())
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue // changed meanwhile by another instance
		}
		return rev, wrapWrite(comp, err)
	}
}

func wrapWrite(comp Component, err error) error {
	if err != nil {
		return fmt.Errorf("backplane: changing %v in the catalog: %w", comp, err)
	}
	return nil
}

// Version returns the last version applied on this instance.
func (c *Catalog) Version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Wait returns once this instance has applied version v (or a later
// one), or ctx's error when ctx ends first.
func (c *Catalog) Wait(ctx context.Context, v uint64) error {
	for {
		c.mu.Lock()
		done, ch := c.version >= v, c.applied
		c.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("backplane: waiting for catalog version %d: %w", v, ctx.Err())
		case <-ch:
		}
	}
}

// Stats returns the catalog's counters.
func (c *Catalog) Stats() CatalogStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Version = c.version
	return s
}

// Close stops applying changes; the registry keeps what it holds, and the
// NATS connection, which the application owns, stays open. It is
// idempotent.
func (c *Catalog) Close() error {
	c.once.Do(func() {
		c.nc.RemoveStatusListener(c.status)
		c.cancel()
		c.wg.Wait()
	})
	return nil
}

// run applies the watcher's entries until Close, and watches again from
// the next version after the connection comes back.
func (c *Catalog) run(w jetstream.KeyWatcher) {
	defer c.wg.Done()
	lost := w == nil
	status := c.status
	for {
		var updates <-chan jetstream.KeyValueEntry
		if w != nil {
			updates = w.Updates()
		}
		var retry <-chan time.Time
		var t *time.Timer
		if w == nil {
			t = time.NewTimer(watchRetry)
			retry = t.C
		}
		rewatch := false
		select {
		case <-c.ctx.Done():
			if w != nil {
				_ = w.Stop()
			}
			if t != nil {
				t.Stop()
			}
			return
		case st, ok := <-status:
			if ok {
				rewatch = st == nats.CONNECTED && lost
				lost = st != nats.CONNECTED
			} else {
				status = nil
			}
		case e, ok := <-updates:
			if !ok {
				rewatch = true
			} else if e != nil {
				c.apply(e)
			}
		case <-retry:
			rewatch = true
		}
		if t != nil {
			t.Stop()
		}
		if rewatch {
			if w != nil {
				_ = w.Stop()
			}
			w = c.rewatch()
		}
	}
}

// rewatch watches the bucket from the version after the last applied; nil
// when it cannot now.
func (c *Catalog) rewatch() jetstream.KeyWatcher {
	ctx, cancel := context.WithTimeout(c.ctx, watchAttempt)
	defer cancel()
	kv, err := c.bucket()
	if err != nil {
		if c.nc.Status() != nats.CONNECTED {
			return nil
		}
		if kv, err = c.open(ctx); err != nil {
			return nil
		}
	}
	w, err := kv.WatchAll(ctx, jetstream.ResumeFromRevision(c.Version()+1))
	if err != nil {
		return nil
	}
	c.mu.Lock()
	c.stats.Rewatches++
	c.mu.Unlock()
	return w
}

// apply applies one entry to the registry, unless its version was
// applied already.
func (c *Catalog) apply(e jetstream.KeyValueEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rev := e.Revision()
	if rev <= c.version {
		return
	}
	defer func() {
		c.version = rev
		close(c.applied)
		c.applied = make(chan struct{})
	}()
	comp, err := parseKey(e.Key())
	var val entry
	if err == nil && e.Operation() == jetstream.KeyValuePut {
		err = json.Unmarshal(e.Value(), &val)
	}
	if err != nil {
		c.stats.Invalid++
		return
	}
	want := e.Operation() == jetstream.KeyValuePut && val.Present
	if want == c.present[comp] {
		return
	}
	def, known := c.defs[comp]
	switch {
	case want && !known:
		c.stats.Undefined++
		c.log.Warn("backplane: the catalog makes present a component this instance does not define; it stays absent here (define it on every instance)",
			"component", comp.String(), "version", rev)
	case want:
		// The registry publishes the list change to the local hub once
		// the new snapshot is what requests read.
		if err := def.add(c.reg); err != nil {
			c.stats.Failed++
			c.log.Error("backplane: the registry refused a catalog component", "component", comp.String(), "version", rev, "err", err)
			return
		}
		c.present[comp] = true
		c.stats.Added++
	default:
		def.remove(c.reg)
		delete(c.present, comp)
		c.stats.Removed++
	}
}
