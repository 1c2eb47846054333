package inprocess_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func newRuntime(t *testing.T, started chan<- struct{}, ended chan<- error) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "direct-test", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}),
		dispatch.WithTool(mcp.Tool{Name: "steps"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i)}); err != nil {
					return nil, err
				}
			}
			return mcp.TextResult("done"), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// TestFramesAreSchemaValid: every frame the Runtime hands the client
// in process is valid against the official schema.
func TestFramesAreSchemaValid(t *testing.T) {
	rt := newRuntime(t, make(chan struct{}, 1), make(chan error, 1))
	var mu sync.Mutex
	methods := map[string]string{}
	var problems []string
	trace := func(sent bool, frame []byte) {
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			mu.Lock()
			problems = append(problems, err.Error())
			mu.Unlock()
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if sent {
			methods[msg.ID.String()] = msg.Method
			return
		}
		if err := testkit.ValidateFrame(testfixture.Version, frame, methods[msg.ID.String()]); err != nil {
			problems = append(problems, err.Error())
		}
	}
	ctx := context.Background()
	c, err := client.New(ctx, inprocess.New(rt), client.WithTrace(trace))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	res, err := c.CallTool(ctx, "steps", nil, client.WithProgress(func(mcp.Progress) { n++ }))
	if err != nil || n != 3 || mcp.TextOf(res.Content) != "done" {
		t.Fatalf("%+v %v (progress %d)", res, err, n)
	}
	if _, err := c.CallTool(ctx, "nope", nil); err == nil {
		t.Fatal("unknown tool accepted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(methods) < 4 {
		t.Fatalf("traced only %d requests", len(methods))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCloseCancelsRunningRequests: Close cancels what is running and
// waits for it.
func TestCloseCancelsRunningRequests(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	c, err := client.New(context.Background(), inprocess.New(newRuntime(t, started, ended)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "wait", nil)
		done <- err
	}()
	<-started
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ended with %v", err)
		}
	default:
		t.Fatal("Close returned before the handler ended")
	}
	select {
	case err := <-done:
		if !errors.Is(err, client.ErrClosed) {
			t.Fatalf("call ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end")
	}
}

func TestNilRuntime(t *testing.T) {
	if _, err := client.New(context.Background(), inprocess.New(nil)); err == nil {
		t.Fatal("a nil Runtime connected")
	}
}
