package backplane_test

import (
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsServer is an embedded NATS server with JetStream on 127.0.0.1,
// keeping its streams under a test's temporary directory, that a test can
// stop and start again on the same port and storage.
type natsServer struct {
	t    testing.TB
	dir  string
	port int
	srv  *server.Server
}

// startNATS starts a server; the test's cleanup stops it.
func startNATS(t testing.TB) *natsServer {
	t.Helper()
	n := &natsServer{t: t, dir: t.TempDir(), port: -1}
	n.start()
	t.Cleanup(n.stop)
	return n
}

// start starts the server (again, on the same port and storage).
func (n *natsServer) start() {
	n.t.Helper()
	srv, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      n.port,
		JetStream: true,
		StoreDir:  n.dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		n.t.Fatal(err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		n.t.Fatal("the embedded NATS server did not become ready in 10 s")
	}
	n.srv = srv
	n.port = srv.Addr().(*net.TCPAddr).Port
}

// stop shuts the server down and waits until it has; it is idempotent.
func (n *natsServer) stop() {
	if n.srv == nil {
		return
	}
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
	n.srv = nil
}

// URL is the server's client URL.
func (n *natsServer) URL() string { return n.srv.ClientURL() }

// connect dials the server; the test's cleanup closes the connection.
func (n *natsServer) connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(n.srv.ClientURL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
