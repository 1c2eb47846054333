package proxy_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// A backend that goes away in the middle of a call ends that call with
// the backend's -32603 error, the proxy's server is left with no request
// in its tree, and later calls fail the same way at once.
func TestProxyBackendGoneMidCall(t *testing.T) {
	started := make(chan struct{})
	rt, err := dispatch.New(mcp.Implementation{Name: "remote", Version: "1.0.0"}, dispatch.WithLogger(quiet),
		dispatch.WithTool(mcp.Tool{Name: "block"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}))
	if err != nil {
		t.Fatal(err)
	}
	// The remote: a stdio server over pipes, stopped abruptly as a
	// process that dies.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, kill := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(ctx, rt, stdio.WithInput(inR), stdio.WithOutput(outW))
		_ = outW.Close()
		_ = inR.Close()
	}()
	b := dial(t, client.Stream(outR, inW), proxy.WithName("slow"))
	srv := testkit.StartHTTP(t, b.Runtime())
	c := testkit.Connect(t, client.HTTP(srv.URL()))

	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "block", nil)
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the call did not reach the remote")
	}
	kill()
	var je *jsonrpc.Error
	select {
	case err := <-errc:
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "Backend slow unavailable") {
			t.Fatalf("the call ended with %v", err)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the call did not end when its backend went away")
	}
	// Nothing is left in the tree but the backend's node, which shows
	// the failure.
	if err := b.Show(srv.Sup); err != nil {
		t.Fatal(err)
	}
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool {
		shown := false
		n.Walk(func(n *supervisor.Node) {
			shown = shown || n.Attrs["backend"] == "slow" && n.Attrs["failures"] == "1" && n.Attrs["protocol"] == mcp.Version20260728
		})
		return shown && n.Count(supervisor.KindRequest) == 0
	})
	if _, err := c.CallTool(context.Background(), "block", nil); !errors.As(err, &je) || !strings.Contains(je.Message, "Backend slow unavailable") {
		t.Fatalf("a later call: %v", err)
	}
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("the remote's Serve: %v", err)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the remote's Serve did not return")
	}
}
