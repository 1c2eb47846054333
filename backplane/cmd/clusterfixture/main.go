// Command clusterfixture serves the conformance fixture
// (examples/everything) as several instances of one server behind a
// round-robin proxy, with initialize-era sessions relayed between them
// over NATS by backplane.Sessions, so that the conformance suite can be
// run against a deployment with no session affinity:
//
//	clusterfixture -fixture PATH [-instances 3] [-sessions]
//
// It starts an embedded NATS server on 127.0.0.1 and, for each instance
// iN, the fixture as a child process on the native listener (with
// -sessions, its session ids beginning with "iN.") and, in this process,
// the instance's front: backplane.Sessions.Middleware around a reverse
// proxy to the child. A round-robin proxy sends each request to the next
// front. Once it accepts requests it prints the fixture's ready line,
//
//	{"conformanceReady":true,"url":"http://127.0.0.1:PORT/mcp"}
//
// and it stops everything when its standard input closes. Every child
// is given the same requestState key (-state-key, drawn at random at
// start), so a multi round-trip state sealed by one instance is accepted
// by the others. The children are separate processes of the root module,
// which has no NATS: their listen streams and task stores are not
// shared (backplane.Events, backplane.NewTaskStore), so 2026-07-28
// listen-stream and tasks scenarios whose requests reach several
// instances fail here.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
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
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
)

// readyTimeout bounds the start of the NATS server and of each child.
const readyTimeout = 30 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// instance is one child fixture and its front.
type instance struct {
	child *exec.Cmd
	stdin io.WriteCloser
	nc    *nats.Conn
	relay *backplane.Sessions
	front *http.Server
	url   string // the front's base URL
}

// run serves until stdin closes; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clusterfixture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fixture := fs.String("fixture", "", "path of the built examples/everything")
	n := fs.Int("instances", 3, "number of instances")
	sessions := fs.Bool("sessions", false, "serve initialize-era sessions, relayed between the instances")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *fixture == "" || *n < 1 {
		logger.Error("-fixture is required and -instances must be at least 1")
		return 2
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		logger.Error("drawing the requestState key", "error", err)
		return 1
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		logger.Error("NATS server", "error", err)
		return 1
	}
	ns.Start()
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	if !ns.ReadyForConnections(readyTimeout) {
		logger.Error("the NATS server did not become ready")
		return 1
	}
	var instances []*instance
	defer func() {
		for _, in := range instances {
			in.stop(logger)
		}
	}()
	for i := range *n {
		in, err := start(i, *fixture, *sessions, hex.EncodeToString(key), ns.ClientURL(), stderr, logger)
		if err != nil {
			logger.Error("starting an instance", "instance", i, "error", err)
			return 1
		}
		instances = append(instances, in)
	}
	front, err := serveRoundRobin(instances, logger)
	if err != nil {
		logger.Error("starting the proxy", "error", err)
		return 1
	}
	defer front.Close()
	line, _ := json.Marshal(map[string]any{"conformanceReady": true, "url": "http://" + front.Addr + "/mcp"})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, stdin)
	return 0
}

// start runs instance i: its NATS connection and relay, its child and
// its front. stateKey is the hexadecimal requestState key every child
// is given.
func start(i int, fixture string, sessions bool, stateKey, natsURL string, stderr io.Writer, logger *slog.Logger) (*instance, error) {
	name := fmt.Sprintf("i%d", i)
	in := &instance{}
	var err error
	if in.nc, err = nats.Connect(natsURL, nats.Name("clusterfixture-"+name)); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if in.relay, err = backplane.NewSessions(ctx, in.nc, name, backplane.SessionsConfig{}, backplane.WithName("clusterfixture"), backplane.WithLogger(logger)); err != nil {
		in.nc.Close()
		return nil, err
	}
	args := []string{"-transport", "http", "-state-key", stateKey}
	if sessions {
		args = append(args, "-sessions", "-session-prefix", in.relay.IDPrefix())
	}
	in.child = exec.Command(fixture, args...)
	in.child.Stderr = stderr
	if in.stdin, err = in.child.StdinPipe(); err != nil {
		in.stop(logger)
		return nil, err
	}
	out, err := in.child.StdoutPipe()
	if err != nil {
		in.stop(logger)
		return nil, err
	}
	if err := in.child.Start(); err != nil {
		in.child = nil
		in.stop(logger)
		return nil, err
	}
	childURL, err := readyURL(out)
	if err != nil {
		in.stop(logger)
		return nil, err
	}
	target, err := url.Parse(childURL)
	if err != nil {
		in.stop(logger)
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = "http", target.Host, target.Host
		},
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(logger.With("instance", name).Handler(), slog.LevelWarn),
	}
	in.front = proxyServer(in.relay.Middleware(rp), logger.With("front", name))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		in.stop(logger)
		return nil, err
	}
	in.url = "http://" + ln.Addr().String()
	go func() { _ = in.front.Serve(ln) }()
	return in, nil
}

// readyURL reads the child's ready line; the rest of its output is
// discarded.
func readyURL(out io.Reader) (string, error) {
	type ready struct {
		Ready bool   `json:"conformanceReady"`
		URL   string `json:"url"`
	}
	got := make(chan ready, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var r ready
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.Ready {
				got <- r
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(got)
	}()
	select {
	case r, ok := <-got:
		if !ok {
			return "", errors.New("the fixture exited before its ready line")
		}
		return r.URL, nil
	case <-time.After(readyTimeout):
		return "", errors.New("the fixture did not print its ready line in time")
	}
}

// stop closes the instance's relay and front, then ends its child.
func (in *instance) stop(logger *slog.Logger) {
	if in.relay != nil {
		_ = in.relay.Close()
	}
	if in.front != nil {
		_ = in.front.Close()
	}
	if in.child != nil {
		_ = in.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- in.child.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				logger.Error("the fixture exited with an error", "error", err)
			}
		case <-time.After(readyTimeout):
			_ = in.child.Process.Kill()
			<-done
		}
	}
	in.nc.Close()
}

// roundRobin is the proxy in front of the instances.
type roundRobin struct {
	*http.Server
	Addr string
}

// serveRoundRobin starts the proxy that sends each request to the next
// instance's front.
func serveRoundRobin(instances []*instance, logger *slog.Logger) (*roundRobin, error) {
	var next atomic.Uint64
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
	return &roundRobin{Server: srv, Addr: ln.Addr().String()}, nil
}
