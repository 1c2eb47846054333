// This file runs the embedded NATS server a Cluster's instances share,
// which a test can stop and start again on the same port and storage.

package clustertest

import (
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsReadyTimeout bounds the wait for the embedded server to accept
// connections.
const natsReadyTimeout = 10 * time.Second

// NATS is an embedded NATS server with JetStream on 127.0.0.1, keeping
// its streams under a test's temporary directory. Its methods are safe
// for concurrent use.
type NATS struct {
	dir string

	mu   sync.Mutex
	port int // -1 until the first start: an ephemeral port
	srv  *server.Server
}

// StartNATS starts an embedded NATS server; the test's cleanup stops it.
func StartNATS(t testing.TB) *NATS {
	t.Helper()
	n := &NATS{dir: t.TempDir(), port: -1}
	n.Start(t)
	t.Cleanup(func() { n.Stop(t) })
	return n
}

// Start starts the server, again on the port and storage of its first
// start; it does nothing when the server is running. Connections dialled
// with reconnection enabled (the default of nats.Connect) reconnect.
func (n *NATS) Start(t testing.TB) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.srv != nil {
		return
	}
	srv, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      n.port,
		JetStream: true,
		StoreDir:  n.dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		t.Fatalf("clustertest: NATS server: %v", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(natsReadyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		t.Fatalf("clustertest: the embedded NATS server did not become ready in %s", natsReadyTimeout)
	}
	n.srv = srv
	n.port = srv.Addr().(*net.TCPAddr).Port
}

// Stop shuts the server down and waits until it has; it does nothing
// when the server is stopped. Connections to it stay open and try to
// reconnect.
func (n *NATS) Stop(t testing.TB) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.srv == nil {
		return
	}
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
	n.srv = nil
}

// URL is the server's client URL, such as "nats://127.0.0.1:4222"; it
// stays the same across Stop and Start.
func (n *NATS) URL() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port))
}

// Connect dials the server with opts; the test's cleanup closes the
// connection.
func (n *NATS) Connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(n.URL(), opts...)
	if err != nil {
		t.Fatalf("clustertest: connecting to NATS: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}
