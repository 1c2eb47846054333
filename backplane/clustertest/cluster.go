// This file starts a Cluster: N instances on one NATS server, each behind
// its own native listener, and the round-robin proxy in front of them.

package clustertest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// closeTimeout bounds the close of each instance's supervisor at cleanup.
const closeTimeout = 10 * time.Second

// Config describes a Cluster.
type Config struct {
	// Instances is how many instances Start runs (default 3).
	Instances int
	// Name is the deployment name, given to backplane.WithName and as the
	// name of every instance's mcp.Implementation (default "clustertest").
	Name string
	// Hub configures each instance's hub.Hub.
	Hub hub.Options
	// Options returns the dispatch options of one instance: its tools,
	// resources, prompts. It is called once per instance, with every
	// field of the Instance but Runtime set, and its options are applied
	// after the ones Start gives (WithLogger with a discarding logger,
	// WithSubscriptions(in.Events), WithCatalog(in.Registry)), so they
	// can replace them. Nil: no more options.
	Options func(in *Instance) []dispatch.Option
	// Listener is given to each instance's streamablehttp.Listen, after
	// the supervisor, the counting middleware and (with Sessions) the
	// session relay Start adds.
	Listener []streamablehttp.ListenerOption
	// Sessions, when not nil, turns on initialize-era sessions in every
	// instance (streamablehttp.WithSessions with this config, its
	// IDPrefix set to the instance's backplane.Sessions.IDPrefix) and the
	// relay that lets each session be used through every instance
	// (backplane.NewSessions, outside any middleware of Listener). A
	// WithSessions in Listener would replace this one.
	Sessions *streamablehttp.SessionConfig
	// SessionRelay bounds the relay of each instance, with Sessions.
	SessionRelay backplane.SessionsConfig
}

// Cluster is a set of instances behind a round-robin proxy, on one NATS
// server.
type Cluster struct {
	// NATS is the server every instance's connection dials; stopping it
	// cuts every instance off the backplane until it is started again.
	NATS *NATS
	// Instances are the instances, in the proxy's order.
	Instances []*Instance

	proxy *proxy
	srv   *httptest.Server
}

// Instance is one server instance of a Cluster.
type Instance struct {
	// Index is the instance's place in Cluster.Instances.
	Index int
	// Name is "i<Index>": "i0", "i1", ...
	Name string
	// Conn is the instance's own NATS connection (reconnecting forever).
	Conn *nats.Conn
	// Hub is the instance's hub, which Events feeds.
	Hub *hub.Hub
	// Events fans the instance's events out to the others; publish
	// through it, not through Hub.
	Events *backplane.Events
	// Registry is Events.NewRegistry(): its changes are heard on every
	// instance.
	Registry *hub.Registry
	// Runtime is the instance's Runtime.
	Runtime *dispatch.Runtime
	// Server is the instance's listener on 127.0.0.1.
	Server *streamablehttp.Server
	// View answers the other instances' requests for this instance's
	// supervision tree, and gathers theirs (backplane.ClusterView).
	View *backplane.ClusterView
	// Sessions relays the requests of sessions owned by other instances
	// (nil unless Config.Sessions is set).
	Sessions *backplane.Sessions

	served  atomic.Int64
	stop    sync.Once
	stopErr error
	cluster *Cluster
}

// Start starts cfg.Instances instances and the proxy in front of them.
// The test's cleanup stops the proxy, every instance (its listener,
// supervisor, Events and NATS connection) and the NATS server, in that
// order, and fails the test if one of them does not stop cleanly.
func Start(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	if cfg.Instances <= 0 {
		cfg.Instances = 3
	}
	if cfg.Name == "" {
		cfg.Name = "clustertest"
	}
	cl := &Cluster{NATS: StartNATS(t)}
	for i := range cfg.Instances {
		cl.Instances = append(cl.Instances, startInstance(t, cl, cfg, i))
	}
	cl.proxy = newProxy(cl.Instances)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The transport picks the instance; see proxy.RoundTrip.
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "instance"
		},
		Transport:     cl.proxy,
		FlushInterval: -1, // stream every event of an SSE response at once
		ErrorLog:      slog.NewLogLogger(slog.DiscardHandler, slog.LevelError),
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "clustertest proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	cl.srv = httptest.NewServer(rp)
	t.Cleanup(func() {
		cl.srv.Close()
		cl.proxy.tr.CloseIdleConnections()
	})
	return cl
}

// startInstance starts instance i of cl.
func startInstance(t testing.TB, cl *Cluster, cfg Config, i int) *Instance {
	t.Helper()
	in := &Instance{Index: i, Name: fmt.Sprintf("i%d", i), cluster: cl, Hub: hub.New(cfg.Hub)}
	in.Conn = cl.NATS.Connect(t, nats.Name(cfg.Name+"-"+in.Name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	var err error
	in.Events, err = backplane.NewEvents(context.Background(), in.Conn, in.Hub, backplane.WithName(cfg.Name))
	if err != nil {
		t.Fatalf("clustertest: instance %s: %v", in.Name, err)
	}
	t.Cleanup(func() { _ = in.Events.Close() })
	in.Registry = in.Events.NewRegistry()
	opts := []dispatch.Option{
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithSubscriptions(in.Events),
		dispatch.WithCatalog(in.Registry),
	}
	if cfg.Options != nil {
		opts = append(opts, cfg.Options(in)...)
	}
	in.Runtime, err = dispatch.New(mcp.Implementation{Name: cfg.Name, Version: "1"}, opts...)
	if err != nil {
		t.Fatalf("clustertest: instance %s: %v", in.Name, err)
	}
	sup, err := supervisor.New(in.Runtime)
	if err != nil {
		t.Fatalf("clustertest: instance %s: %v", in.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Errorf("clustertest: instance %s: closing its supervisor: %v", in.Name, err)
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("clustertest: instance %s: %d unexpected dead letters", in.Name, n)
		}
	})
	in.View, err = backplane.NewClusterView(context.Background(), in.Conn, in.Name, sup.Tree, backplane.WithName(cfg.Name))
	if err != nil {
		t.Fatalf("clustertest: instance %s: %v", in.Name, err)
	}
	t.Cleanup(func() { _ = in.View.Close() })
	count := streamablehttp.WithHTTPMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in.served.Add(1)
			next.ServeHTTP(w, r)
		})
	})
	lopts := []streamablehttp.ListenerOption{streamablehttp.WithSupervisor(sup), count}
	if cfg.Sessions != nil {
		in.Sessions, err = backplane.NewSessions(context.Background(), in.Conn, in.Name, cfg.SessionRelay, backplane.WithName(cfg.Name))
		if err != nil {
			t.Fatalf("clustertest: instance %s: %v", in.Name, err)
		}
		t.Cleanup(func() { _ = in.Sessions.Close() })
		sc := *cfg.Sessions
		sc.IDPrefix = in.Sessions.IDPrefix()
		lopts = append(lopts, streamablehttp.WithHTTPMiddleware(in.Sessions.Middleware), streamablehttp.WithSessions(sc))
	}
	lopts = append(lopts, cfg.Listener...)
	in.Server, err = streamablehttp.Listen(in.Runtime, lopts...)
	if err != nil {
		t.Fatalf("clustertest: instance %s: %v", in.Name, err)
	}
	t.Cleanup(func() {
		if err := in.shutdown(); err != nil {
			t.Errorf("clustertest: instance %s: closing its listener: %v", in.Name, err)
		}
	})
	return in
}

// URL is the endpoint of the proxy in front of the instances, such as
// "http://127.0.0.1:38123/mcp": give it to client.HTTP.
func (c *Cluster) URL() string { return c.srv.URL + "/mcp" }

// Skipped counts the times the proxy could not connect to an instance
// (a stopped one) and sent the request on to the next.
func (c *Cluster) Skipped() int64 { return c.proxy.skipped.Load() }

// Served counts the HTTP requests the instance's listener has read
// (before the transport's checks, whatever their path).
func (in *Instance) Served() int64 { return in.served.Load() }

// Stop stops the instance as a crashed process would: its listener is
// closed at once (requests in flight are cancelled, open streams end),
// its Events stops fanning events in and out, its View stops
// answering (it says so, and the others no longer count it), and its
// Sessions stops taking relays (the others answer 404 for its sessions). The proxy's idle
// connections are dropped, so that it must dial again, and from then on
// the proxy skips the instance, whose port refuses connections. Stop is
// idempotent; the Runtime and the NATS connection stay until cleanup.
func (in *Instance) Stop(t testing.TB) {
	t.Helper()
	if in.Sessions != nil {
		_ = in.Sessions.Close()
	}
	if err := in.shutdown(); err != nil {
		t.Fatalf("clustertest: stopping instance %s: %v", in.Name, err)
	}
	_ = in.Events.Close()
	_ = in.View.Close()
	in.cluster.proxy.tr.CloseIdleConnections()
}

// shutdown closes the listener once and reports the first close's error.
func (in *Instance) shutdown() error {
	in.stop.Do(func() { in.stopErr = in.Server.Close() })
	return in.stopErr
}
