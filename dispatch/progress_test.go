package dispatch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// progressProbe collects what ReportProgress returned inside a handler.
type progressProbe struct {
	errs []error
}

func progressRuntime(t *testing.T, probe *progressProbe, report func(ctx context.Context, probe *progressProbe), opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	return mustNew(t, append(opts, dispatch.WithTool(mcp.Tool{Name: "test_tool_with_progress"},
		func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			report(ctx, probe)
			return mcp.TextResult("done"), nil
		}))...)
}

func withToken(token any) map[string]any {
	return map[string]any{"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": token}}
}

func TestProgressReported(t *testing.T) {
	probe := &progressProbe{}
	rt := progressRuntime(t, probe, func(ctx context.Context, p *progressProbe) {
		for _, v := range []float64{0, 50, 100} {
			p.errs = append(p.errs, dispatch.ReportProgress(ctx, mcp.Progress{Progress: v, Total: 100, Message: "step"}))
		}
	})
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", withToken("progress-test-1"), func(r *dispatch.Request) { r.Notifier = rec }))
	ns := rec.Notifications()
	if len(ns) != 3 {
		t.Fatalf("%d notifications, want 3 (errors %v)", len(ns), probe.errs)
	}
	for i, n := range ns {
		if n.Method != "notifications/progress" || n.Params["progressToken"] != "progress-test-1" || n.Params["progress"] != float64(i*50) || n.Params["total"] != float64(100) {
			t.Fatalf("notification %d = %s", i, n.Raw)
		}
	}
	// An integer token is echoed as an integer.
	rec = testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", withToken(7), func(r *dispatch.Request) { r.Notifier = rec }))
	if ns := rec.Notifications(); len(ns) != 3 || !strings.Contains(string(ns[0].Raw), `"progressToken":7`) {
		t.Fatalf("integer token: %v", ns)
	}
}

func TestProgressWithoutTokenSendsNothing(t *testing.T) {
	probe := &progressProbe{}
	rt := progressRuntime(t, probe, func(ctx context.Context, p *progressProbe) {
		p.errs = append(p.errs, dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1}))
	})
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", map[string]any{"name": "test_tool_with_progress"}, func(r *dispatch.Request) { r.Notifier = rec }))
	if n := len(rec.Notifications()); n != 0 || probe.errs[0] != nil {
		t.Fatalf("%d notifications without a token (err %v)", n, probe.errs[0])
	}
	if err := dispatch.ReportProgress(context.Background(), mcp.Progress{Progress: 1}); err != nil {
		t.Fatalf("outside a handler: %v", err)
	}
}

func TestProgressLimits(t *testing.T) {
	probe := &progressProbe{}
	rt := progressRuntime(t, probe, func(ctx context.Context, p *progressProbe) {
		p.errs = append(p.errs,
			dispatch.ReportProgress(ctx, mcp.Progress{Progress: 5}),
			dispatch.ReportProgress(ctx, mcp.Progress{Progress: 5}),                                     // not increasing
			dispatch.ReportProgress(ctx, mcp.Progress{Progress: 4}),                                     // decreasing
			dispatch.ReportProgress(ctx, mcp.Progress{Progress: 6, Message: strings.Repeat("m", 4097)}), // too long
			dispatch.ReportProgress(ctx, mcp.Progress{Progress: 6, Message: strings.Repeat("m", 4096)}),
		)
		for i := 7; i < 2000; i++ {
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i)}); err != nil {
				p.errs = append(p.errs, err)
				break
			}
		}
	})
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", withToken("t"), func(r *dispatch.Request) { r.Notifier = rec }))
	want := []error{nil, dispatch.ErrProgressNotIncreasing, dispatch.ErrProgressNotIncreasing, dispatch.ErrProgressMessage, nil, dispatch.ErrProgressLimit}
	if len(probe.errs) != len(want) {
		t.Fatalf("errors = %v", probe.errs)
	}
	for i, w := range want {
		if (w == nil) != (probe.errs[i] == nil) || w != nil && !errors.Is(probe.errs[i], w) {
			t.Fatalf("report %d: err %v, want %v", i, probe.errs[i], w)
		}
	}
	if n := len(rec.Notifications()); n != 1000 {
		t.Fatalf("%d notifications, want the limit of 1,000", n)
	}
}

func TestProgressStopsWhenCancelled(t *testing.T) {
	probe := &progressProbe{}
	rt := progressRuntime(t, probe, func(ctx context.Context, p *progressProbe) {
		p.errs = append(p.errs, dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1}))
	})
	rec := testfixture.NewRecorder(t)
	msg := testkit.Request(1, "tools/call", withToken("t"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := decodeRequest(t, msg)
	req.Notifier = rec
	rt.Dispatch(ctx, req)
	if len(rec.Notifications()) != 0 || !errors.Is(probe.errs[0], context.Canceled) {
		t.Fatalf("cancelled request reported progress: %v", probe.errs)
	}
}
