package dispatch_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
)

func loggingRuntime(t *testing.T, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	return mustNew(t, append(opts, dispatch.WithTool(mcp.Tool{Name: "test_logging_tool"},
		func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			log := dispatch.Logger(ctx).With(dispatch.LoggerNameKey, "db", "conn", 3)
			log.Debug("debug detail")
			log.Info("connected", "host", "localhost")
			log.Log(ctx, dispatch.LevelNotice, "noticed")
			log.WithGroup("query").Warn("slow", "ms", 250)
			log.Error("failed", "err", errors.New("boom"))
			log.Log(ctx, dispatch.LevelEmergency, "on fire")
			return mcp.TextResult("done"), nil
		}))...)
}

func logCall(t *testing.T, rt *dispatch.Runtime, level string) []testfixture.Recorded {
	t.Helper()
	p := map[string]any{"name": "test_logging_tool"}
	if level != "" {
		p["_meta"] = map[string]any{"io.modelcontextprotocol/logLevel": level}
	}
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", p, func(r *dispatch.Request) { r.Notifier = rec }))
	return rec.Notifications()
}

func TestLoggingFollowsRequestLevel(t *testing.T) {
	rt := loggingRuntime(t, dispatch.WithLogging())
	if caps := resultOf(t, call(t, rt, "server/discover", nil))["capabilities"].(map[string]any); caps["logging"] == nil {
		t.Fatalf("logging not advertised: %v", caps)
	}
	if ns := logCall(t, rt, ""); len(ns) != 0 {
		t.Fatalf("sent %d messages though the request set no level", len(ns))
	}
	ns := logCall(t, rt, "debug")
	var levels []string
	for _, n := range ns {
		levels = append(levels, n.Params["level"].(string))
	}
	if want := []string{"debug", "info", "notice", "warning", "error", "emergency"}; len(levels) != len(want) {
		t.Fatalf("levels = %v, want %v", levels, want)
	} else {
		for i := range want {
			if levels[i] != want[i] {
				t.Fatalf("levels = %v, want %v", levels, want)
			}
		}
	}
	info := ns[1].Params
	data := info["data"].(map[string]any)
	if info["logger"] != "db" || data["message"] != "connected" || data["host"] != "localhost" || data["conn"] != float64(3) {
		t.Fatalf("info message = %s", ns[1].Raw)
	}
	if q := ns[3].Params["data"].(map[string]any)["query"].(map[string]any); q["ms"] != float64(250) {
		t.Fatalf("grouped attribute = %s", ns[3].Raw)
	}
	if ns[4].Params["data"].(map[string]any)["err"] != "boom" {
		t.Fatalf("error attribute = %s", ns[4].Raw)
	}
	ns = logCall(t, rt, "warning")
	if len(ns) != 3 || ns[0].Params["level"] != "warning" {
		t.Fatalf("at warning: %d messages", len(ns))
	}
}

func TestLoggingNeedsCapability(t *testing.T) {
	rt := loggingRuntime(t)
	if ns := logCall(t, rt, "debug"); len(ns) != 0 {
		t.Fatalf("sent %d messages without the logging capability", len(ns))
	}
	if l := dispatch.Logger(context.Background()); l.Enabled(context.Background(), slog.LevelError) {
		t.Fatal("a logger outside a handler is enabled")
	}
}

func TestLoggingLimit(t *testing.T) {
	var errs []error
	rt := mustNew(t, dispatch.WithLogging(), dispatch.WithLimits(dispatch.Limits{MaxLogMessages: 2}),
		dispatch.WithTool(mcp.Tool{Name: "chatty"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			h := dispatch.Logger(ctx).Handler()
			for i := 0; i < 3; i++ {
				errs = append(errs, h.Handle(ctx, slog.NewRecord(timeZero, slog.LevelInfo, "m", 0)))
			}
			return mcp.TextResult("ok"), nil
		}))
	rec := testfixture.NewRecorder(t)
	resultOf(t, callWith(t, rt, "tools/call", map[string]any{"name": "chatty", "_meta": map[string]any{"io.modelcontextprotocol/logLevel": "info"}},
		func(r *dispatch.Request) { r.Notifier = rec }))
	if len(rec.Notifications()) != 2 || !errors.Is(errs[2], dispatch.ErrLogLimit) {
		t.Fatalf("%d messages, errors %v", len(rec.Notifications()), errs)
	}
}

var timeZero time.Time
