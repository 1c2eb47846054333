package backplane_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/taskstore"
)

// TestStartWithoutNATS: a connection that cannot carry the backplane
// fails both constructors at once, with ErrUnavailable and the reason.
func TestStartWithoutNATS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ns := startNATS(t)
	closed := ns.connect(t)
	closed.Close()
	// A connection that never reached a server: the application asked
	// the client to keep trying, so it exists but is not connected.
	url := ns.URL()
	ns.stop()
	pending, err := nats.Connect(url, nats.RetryOnFailedConnect(true), nats.ReconnectWait(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer pending.Close()

	for _, c := range []struct {
		name string
		nc   *nats.Conn
		says string
	}{
		{"nil", nil, "nil *nats.Conn"},
		{"closed", closed, "is CLOSED, not connected"},
		{"never connected", pending, "not connected"},
	} {
		_, err := backplane.NewTaskStore(ctx, c.nc, taskstore.Options{})
		if !errors.Is(err, backplane.ErrUnavailable) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("NewTaskStore with a %s connection: %v, want ErrUnavailable saying %q", c.name, err, c.says)
		}
		_, err = backplane.NewEvents(ctx, c.nc, hub.New(hub.Options{}))
		if !errors.Is(err, backplane.ErrUnavailable) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("NewEvents with a %s connection: %v, want ErrUnavailable saying %q", c.name, err, c.says)
		}
	}
}

// TestTaskStoreNeedsJetStream: a server without JetStream fails
// NewTaskStore with a message that says so.
func TestTaskStoreNeedsJetStream(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = backplane.NewTaskStore(ctx, nc, taskstore.Options{})
	if !errors.Is(err, backplane.ErrUnavailable) || !strings.Contains(err.Error(), "JetStream is not enabled") {
		t.Fatalf("NewTaskStore without JetStream: %v", err)
	}
}

// TestWithNameRefusesBadNames: a name that cannot be a bucket name and a
// subject token is refused before anything is created.
func TestWithNameRefusesBadNames(t *testing.T) {
	for _, name := range []string{"", "a.b", "a*", "a b", strings.Repeat("x", 65)} {
		_, err := backplane.NewTaskStore(context.Background(), nil, taskstore.Options{}, backplane.WithName(name))
		if err == nil || !strings.Contains(err.Error(), "WithName") {
			t.Errorf("WithName(%q): %v", name, err)
		}
	}
}
