package backplane_test

import (
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane/clustertest"
)

// natsServer is the embedded NATS server of clustertest (JetStream on
// 127.0.0.1, its streams under the test's temporary directory), which a
// test can stop and start again on the same port and storage.
type natsServer struct {
	t testing.TB
	*clustertest.NATS
}

// startNATS starts a server; the test's cleanup stops it.
func startNATS(t testing.TB) *natsServer {
	t.Helper()
	return &natsServer{t: t, NATS: clustertest.StartNATS(t)}
}

// start starts the server again, on the same port and storage.
func (n *natsServer) start() { n.t.Helper(); n.Start(n.t) }

// stop shuts the server down and waits until it has; it is idempotent.
func (n *natsServer) stop() { n.t.Helper(); n.Stop(n.t) }

// connect dials the server; the test's cleanup closes the connection.
func (n *natsServer) connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	return n.Connect(t, opts...)
}
