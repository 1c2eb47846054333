// Command clusterfixture serves the conformance fixture
// (examples/everything/fixture) as several instances of one server
// behind a round-robin proxy, sharing what the backplane shares over
// NATS, so that the conformance suite can be run against a deployment
// with no affinity of any kind:
//
//	clusterfixture [-instances 3] [-sessions]
//
// It starts an embedded NATS server with JetStream on 127.0.0.1 and, in
// this process, each instance iN: its own NATS connection, hub and
// supervision tree, and the fixture on the native listener with
//
//   - backplane.Events as its subscription source, so a listen stream or
//     an initialize-era session on one instance hears the changes and
//     the task status changes of every instance;
//   - a backplane.Catalog as its catalog, defining the components the
//     trigger tools add and remove (fixture.DynamicTool,
//     fixture.DynamicPrompt), so that a trigger called on one instance
//     changes the lists of all (see sharedLists);
//   - backplane.NewTaskStore as its task store, so a task created
//     through one instance is read, updated and cancelled through any;
//   - the same requestState key (drawn at random at start), so a multi
//     round-trip state sealed by one instance is accepted by the others;
//   - with -sessions, initialize-era sessions whose ids begin with "iN.",
//     relayed to their owner by backplane.Sessions.
//
// A round-robin proxy sends each request to the next instance. Once it
// accepts requests it prints the fixture's ready line,
//
//	{"conformanceReady":true,"url":"http://127.0.0.1:PORT/mcp"}
//
// and it stops everything when its standard input closes.
package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// readyTimeout bounds the start of the NATS server and of each
// instance, and the drain of each at the end.
const readyTimeout = 30 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run serves until stdin closes; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clusterfixture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("instances", 3, "number of instances")
	sessions := fs.Bool("sessions", false, "serve initialize-era sessions, relayed between the instances")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *n < 1 {
		logger.Error("-instances must be at least 1")
		return 2
	}
	c, err := serve(*n, *sessions, logger)
	if err != nil {
		logger.Error("starting the deployment", "error", err)
		return 1
	}
	defer c.stop(logger)
	line, _ := json.Marshal(map[string]any{"conformanceReady": true, "url": "http://" + c.front.Addr + "/mcp"})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, stdin)
	return 0
}

// fleet is the running deployment: the NATS server, the instances and
// the proxy in front of them.
type fleet struct {
	dir       string // the NATS server's storage
	ns        *server.Server
	instances []*instance
	front     *roundRobin
}

// serve starts n instances behind the round-robin proxy.
func serve(n int, sessions bool, logger *slog.Logger) (c *fleet, err error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("drawing the requestState key: %w", err)
	}
	c = &fleet{}
	defer func() {
		if err != nil {
			c.stop(logger)
		}
	}()
	if c.dir, err = os.MkdirTemp("", "clusterfixture-nats"); err != nil {
		return nil, err
	}
	c.ns, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: c.dir, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, fmt.Errorf("NATS server: %w", err)
	}
	c.ns.Start()
	if !c.ns.ReadyForConnections(readyTimeout) {
		return nil, errors.New("the NATS server did not become ready")
	}
	catalogs := &catalogSet{}
	for i := range n {
		in, err := start(fmt.Sprintf("i%d", i), c.ns.ClientURL(), key, sessions, catalogs, logger)
		if err != nil {
			return nil, fmt.Errorf("starting instance %d: %w", i, err)
		}
		c.instances = append(c.instances, in)
		catalogs.add(in.catalog)
	}
	if c.front, err = serveRoundRobin(c.instances, logger); err != nil {
		return nil, fmt.Errorf("starting the proxy: %w", err)
	}
	return c, nil
}

// stop closes the proxy, the instances and the NATS server, and removes
// its storage.
func (c *fleet) stop(logger *slog.Logger) {
	if c.front != nil {
		_ = c.front.Close()
	}
	for _, in := range c.instances {
		in.stop(logger)
	}
	if c.ns != nil {
		c.ns.Shutdown()
		c.ns.WaitForShutdown()
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// roundRobin is the proxy in front of the instances.
type roundRobin struct {
	*http.Server
	Addr string
	next *atomic.Uint64 // the requests sent so far
}

// serveRoundRobin starts the proxy that sends each request to the next
// instance.
func serveRoundRobin(instances []*instance, logger *slog.Logger) (*roundRobin, error) {
	next := new(atomic.Uint64)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			in := instances[(next.Add(1)-1)%uint64(len(instances))]
			u, _ := url.Parse(in.url)
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", u.Host
			pr.Out.Host = pr.In.Host
		},
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := proxyServer(rp, logger)
	go func() { _ = srv.Serve(ln) }()
	return &roundRobin{Server: srv, Addr: ln.Addr().String(), next: next}, nil
}
