package supervisor_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func quietRuntime(t testing.TB, opts ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "sup", Version: "1"}, append([]dispatch.Option{dispatch.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestTreeShowsRootAndExecutorLimits(t *testing.T) {
	sup, err := supervisor.New(quietRuntime(t), supervisor.WithLimits(supervisor.Limits{MaxConcurrency: 3, MaxQueue: 7}))
	if err != nil {
		t.Fatal(err)
	}
	tree := sup.Tree()
	if tree.Kind != "supervisor" || tree.ID != "snodo" {
		t.Fatalf("root: %+v", tree)
	}
	ex := testkit.Find(tree, "executor")
	if ex == nil || ex.Attrs["max_concurrency"] != "3" || ex.Attrs["max_queue"] != "7" || ex.Attrs["running"] != "0" {
		t.Fatalf("executor node: %+v", ex)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sup.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n := testkit.Find(sup.Tree(), "executor"); n != nil {
		t.Fatalf("a closed tree still shows its executor: %+v", n)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	rt := quietRuntime(t)
	if _, err := supervisor.New(nil); err == nil || !strings.Contains(err.Error(), "nil Runtime") {
		t.Fatalf("nil Runtime: %v", err)
	}
	for _, c := range []struct {
		opt  supervisor.Option
		want string
	}{
		{supervisor.WithLimits(supervisor.Limits{MaxConcurrency: -1}), "supervisor: WithLimits: MaxConcurrency must not be negative"},
		{supervisor.WithLimits(supervisor.Limits{RequestTimeout: -time.Second}), "supervisor: WithLimits: RequestTimeout must not be negative"},
		{supervisor.WithLimits(supervisor.Limits{MaxSubscriptions: -1}), "supervisor: WithLimits: MaxSubscriptions must not be negative"},
		{supervisor.WithLogger(nil), "supervisor: WithLogger: nil logger"},
	} {
		if sup, err := supervisor.New(rt, c.opt); err == nil || err.Error() != c.want {
			if sup != nil {
				_ = sup.Close(context.Background())
			}
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// The tree's executor reports to the Runtime's sink unless the supervisor
// is given another (or none).
func TestTreeInheritsTheRuntimesSink(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    func(own *testfixture.Events) []supervisor.Option
		rtWant  bool // the Runtime's sink hears the slot
		ownWant bool // the supervisor's own sink hears it
	}{
		{"inherited", func(*testfixture.Events) []supervisor.Option { return nil }, true, false},
		{"replaced", func(own *testfixture.Events) []supervisor.Option {
			return []supervisor.Option{supervisor.WithInstrumentation(own)}
		}, false, true},
		{"off", func(*testfixture.Events) []supervisor.Option {
			return []supervisor.Option{supervisor.WithInstrumentation(nil)}
		}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rtSink, own := &testfixture.Events{}, &testfixture.Events{}
			rt := quietRuntime(t, dispatch.WithInstrumentation(rtSink))
			sup, err := supervisor.New(rt, c.opts(own)...)
			if err != nil {
				t.Fatal(err)
			}
			srv := testkit.StartStdioWith(t, sup, rt)
			srv.Client.Call(t, "server/discover", nil)
			srv.CloseInput()
			if err := srv.Wait(t); err != nil {
				t.Fatal(err)
			}
			if err := sup.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			heard := func(e *testfixture.Events) bool {
				return len(testfixture.EventsOf[instrumentation.ExecutorEvent](e)) > 0
			}
			if heard(rtSink) != c.rtWant || heard(own) != c.ownWant {
				t.Fatalf("executor events: Runtime's sink %v, supervisor's %v", heard(rtSink), heard(own))
			}
		})
	}
}

func newSupervisor(t *testing.T) *supervisor.Supervisor {
	t.Helper()
	sup, err := supervisor.New(quietRuntime(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return sup
}
