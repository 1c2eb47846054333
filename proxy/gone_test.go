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
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
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
	b := dial(t, &client.StreamTransport{Reader: outR, Writer: inW}, proxy.WithName("slow"))
	srv := testfixture.StartHTTP(t, b.Runtime())
	c := testkit.Connect(t, &client.HTTPTransport{URL: srv.URL()})

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
		return shown && n.Count("request") == 0
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

// A group's backends each show their health in the gateway's tree, a
// held call among it.
func TestGroupShowsBackendHealth(t *testing.T) {
	g := proxy.NewGroup(proxy.GroupLimits{})
	defer g.Close()
	ctx := context.Background()
	if _, err := g.Dial(ctx, "a", inprocess.New(newRemote(t).rt), proxy.WithLogger(quiet)); err != nil {
		t.Fatal(err)
	}
	survey := surveyRemote(t, nil)
	held, err := g.Dial(ctx, "b", serve(t, survey, mcp.Version20250618), proxy.WithLogger(quiet),
		proxy.WithClientOptions(client.WithProtocolVersions(mcp.Version20250618)))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := dispatch.New(mcp.Implementation{Name: "gateway", Version: "1.0.0"}, append(g.Mounts(), dispatch.WithLogger(quiet))...)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(gw)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := sup.Close(ctx); err != nil {
			t.Errorf("sup.Close: %v", err)
		}
	}()
	if err := g.Show(sup); err != nil {
		t.Fatal(err)
	}
	c := testkit.Connect(t, inprocess.New(held.Runtime()))
	caps := client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
	var ir *client.InputRequiredError
	if _, err := c.CallTool(ctx, "survey", nil, caps); !errors.As(err, &ir) {
		t.Fatalf("a call held for input: %v", err)
	}
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		seen := map[string]bool{}
		n.Walk(func(n *supervisor.Node) {
			switch {
			case n.Attrs["backend"] == "a" && n.Attrs["protocol"] == mcp.Version20260728 && n.Attrs["held_calls"] == "0":
				seen["a"] = true
			case n.Attrs["backend"] == "b" && n.Attrs["protocol"] == mcp.Version20250618 && n.Attrs["held_calls"] == "1":
				seen["b"] = true
			}
		})
		return seen["a"] && seen["b"]
	})
}
