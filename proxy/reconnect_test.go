package proxy_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// A backend whose process dies fails the call in flight, is started
// again for the next one, and its list changes are followed again.
func TestProxyReconnectsThroughTheClient(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &client.CommandTransport{Path: exe}
	cmd.Env = append(os.Environ(), serverEnv+"=mortal")
	b := dial(t, cmd, proxy.WithName("mortal"), proxy.WithReconnect(client.Reconnect{InitialDelay: time.Millisecond}))
	c := testkit.Connect(t, inprocess.New(b.Runtime()))
	ctx := context.Background()
	call := func(name string) (string, error) {
		res, err := c.CallTool(ctx, name, nil)
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	first, err := call("pid")
	if err != nil {
		t.Fatal(err)
	}
	var je *jsonrpc.Error
	if _, err := call("die"); !errors.As(err, &je) || !strings.Contains(je.Message, "Backend mortal unavailable") {
		t.Fatalf("the call that ended the backend: %v", err)
	}
	second, err := call("pid")
	if err != nil || second == first {
		t.Fatalf("after the restart: %q (was %q), %v", second, first, err)
	}
	// The watcher subscribes to the new process (a second stream), and
	// its list changes reach the proxy.
	deadline := time.Now().Add(testkit.DefaultTimeout)
	for b.Health().Streams < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not subscribe again: %+v", b.Health())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if h := b.Health(); h.Reconnects != 1 {
		t.Fatalf("health: %+v", h)
	}
	woke := make(chan struct{}, 1)
	l := b.Runtime().SubscriptionSource().(*hub.Hub).Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	if _, err := l.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatalf("listener: %v", err)
	}
	if _, err := call("grow"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-woke:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the new process's list change never reached the proxy")
	}
	names := []string{}
	for _, tl := range b.Runtime().Tools() {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "grown") {
		t.Fatalf("tools: %v", names)
	}
}
