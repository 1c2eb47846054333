// This file starts the cluster: an embedded NATS server, three instances
// sharing it through the backplane, and the proxy in front of them.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// name is the deployment's name: its buckets and subjects.
const name = "cluster30"

var object = json.RawMessage(`{"type":"object"}`)

// cluster is the running deployment.
type cluster struct {
	nats      *server.Server
	dir       string
	instances []*instance
	proxy     *proxy
	srv       *http.Server
	ln        net.Listener
	served    chan error
	// gate holds the task tool "slow" until it is closed.
	gate     chan struct{}
	gateOnce sync.Once
}

// instance is one server instance.
type instance struct {
	name   string
	nc     *nats.Conn
	events *backplane.Events
	cat    *backplane.Catalog
	store  *backplane.TaskStore
	runner *tasks.Runner
	sup    *supervisor.Supervisor
	srv    *streamablehttp.Server
	view   *backplane.ClusterView

	stopOnce sync.Once
	stopErr  error
}

// startCluster starts NATS, n instances and the proxy on addr.
func startCluster(ctx context.Context, addr string, n int) (_ *cluster, err error) {
	cl := &cluster{gate: make(chan struct{}), served: make(chan error, 1)}
	defer func() {
		if err != nil {
			_ = cl.close()
		}
	}()
	if cl.dir, err = os.MkdirTemp("", "30_cluster"); err != nil {
		return nil, err
	}
	cl.nats, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: cl.dir, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, err
	}
	cl.nats.Start()
	if !cl.nats.ReadyForConnections(10 * time.Second) {
		return nil, errors.New("the NATS server did not start in 10 s")
	}
	for i := range n {
		in, err := cl.startInstance(ctx, fmt.Sprintf("i%d", i))
		if err != nil {
			return nil, fmt.Errorf("instance i%d: %w", i, err)
		}
		cl.instances = append(cl.instances, in)
	}
	cl.proxy = newProxy(cl.instances)
	mux := http.NewServeMux()
	mux.Handle("/mcp", &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "instance" },
		Transport:     cl.proxy,
		FlushInterval: -1, // stream every event of an SSE response at once
		ErrorLog:      slog.NewLogLogger(slog.DiscardHandler, slog.LevelError),
	})
	// Operators only: the trees of every live instance, from the first.
	mux.Handle("/debug/cluster", cl.instances[0].view.Handler())
	if cl.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, err
	}
	cl.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { cl.served <- cl.srv.Serve(cl.ln) }()
	return cl, nil
}

// startInstance starts one instance: its NATS connection, the backplane's
// Events, Catalog, TaskStore and ClusterView, its Runtime, supervisor,
// task runner and listener on an ephemeral port.
func (cl *cluster) startInstance(ctx context.Context, instanceName string) (*instance, error) {
	in := &instance{name: instanceName}
	var err error
	if in.nc, err = nats.Connect(cl.nats.ClientURL(), nats.Name(instanceName), nats.MaxReconnects(-1)); err != nil {
		return nil, err
	}
	hub := hub.New(hub.Options{})
	if in.events, err = backplane.NewEvents(ctx, in.nc, hub, backplane.WithName(name)); err != nil {
		return in, err
	}
	// Every instance defines the tools that may appear at run time; the
	// catalog says which are present.
	var defs backplane.Definitions
	defs.DefineTool(mcp.Tool{Name: "forecast", Description: "Tomorrow's weather.", InputSchema: object},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("sunny, says " + instanceName), nil
		})
	if in.cat, err = backplane.NewCatalog(ctx, in.nc, hub, &defs, backplane.WithName(name)); err != nil {
		return in, err
	}
	if in.store, err = backplane.NewTaskStore(ctx, in.nc, taskstore.Options{}, backplane.WithName(name)); err != nil {
		return in, err
	}
	if in.runner, err = tasks.New(tasks.WithStore(in.store), tasks.WithTools(tasks.Tool{Name: "slow", Support: tasks.Optional})); err != nil {
		return in, err
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "30_cluster", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithCatalog(in.cat.Registry()),
		dispatch.WithSubscriptions(in.events),
		in.runner.Option(),
		dispatch.WithTool(mcp.Tool{Name: "whoami", Description: "The instance that ran the call.", InputSchema: object},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult(instanceName), nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "slow", Description: "Runs until the example lets it finish; may run as a task.", InputSchema: object},
			func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-cl.gate:
					return mcp.TextResult("done on " + instanceName), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}))
	if err != nil {
		return in, err
	}
	if in.sup, err = supervisor.New(rt); err != nil {
		return in, err
	}
	if err := in.runner.Start(ctx, rt, in.sup); err != nil {
		return in, err
	}
	if in.view, err = backplane.NewClusterView(ctx, in.nc, instanceName, in.sup.Tree, backplane.WithName(name)); err != nil {
		return in, err
	}
	in.srv, err = streamablehttp.Listen(rt, streamablehttp.WithSupervisor(in.sup), streamablehttp.WithAddr("127.0.0.1:0"))
	return in, err
}

// stop stops the instance as a crashed process would, as far as its
// clients can tell: its listener closes, and it leaves the backplane.
// The rest is closed by close.
func (in *instance) stop() error {
	in.stopOnce.Do(func() {
		if in.srv != nil {
			in.stopErr = in.srv.Close()
		}
		if in.view != nil {
			_ = in.view.Close()
		}
		if in.cat != nil {
			_ = in.cat.Close()
		}
		if in.events != nil {
			_ = in.events.Close()
		}
	})
	return in.stopErr
}

// close stops everything: the proxy, each instance, NATS.
func (cl *cluster) close() error {
	var errs []error
	if cl.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, cl.srv.Shutdown(ctx))
		cancel()
		if err := <-cl.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		cl.proxy.tr.CloseIdleConnections()
	}
	cl.openGate()
	for _, in := range cl.instances {
		errs = append(errs, in.close())
	}
	if cl.nats != nil {
		cl.nats.Shutdown()
		cl.nats.WaitForShutdown()
	}
	if cl.dir != "" {
		errs = append(errs, os.RemoveAll(cl.dir))
	}
	return errors.Join(errs...)
}

// close closes what stop left, then the rest of the instance.
func (in *instance) close() error {
	errs := []error{in.stop()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if in.runner != nil {
		errs = append(errs, in.runner.Close(ctx))
	}
	if in.sup != nil {
		errs = append(errs, in.sup.Close(ctx))
	}
	if in.store != nil {
		errs = append(errs, in.store.Close())
	}
	if in.nc != nil {
		in.nc.Close()
	}
	return errors.Join(errs...)
}

// openGate lets every "slow" call finish.
func (cl *cluster) openGate() { cl.gateOnce.Do(func() { close(cl.gate) }) }

func (cl *cluster) url() string { return "http://" + cl.ln.Addr().String() + "/mcp" }
func (cl *cluster) viewURL() string {
	return "http://" + cl.ln.Addr().String() + "/debug/cluster?format=text"
}

func (cl *cluster) names() string {
	var s []string
	for _, in := range cl.instances {
		s = append(s, in.name+" "+in.srv.URL())
	}
	return strings.Join(s, ", ")
}
