package load_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/internal/snodoserver"
	"github.com/snodo-go/snodo/bench/load"
)

// benchServers are the servers the benchmark measures, as benchrun builds
// them.
var benchServers = []struct {
	name, pkg string
	kinds     []string
}{
	{"snodo", "./cmd/server-snodo", nil},
	{"go-sdk", "./cmd/server-gosdk", nil},
	{"mcp-go", "./cmd/server-mcpgo", nil},
	{"floor-stdio", "./cmd/server-floor-stdio", []string{"stdio"}},
	{"floor-http", "./cmd/server-floor-http", []string{"http"}},
}

// TestSmokeEveryServer builds each benchmark server and runs a tiny load
// of every kind of scenario against it as a process, as benchrun does, so
// neither a server nor the driver can rot unnoticed: each measurement
// must succeed with no JSON-RPC error. snodo-go must also serve every
// subscriptions/listen stream (stdio and HTTP), stop every cancelled
// call of both storms without a late response, and run a task to its end
// on each store; the peers' figures are only measured (a peer that runs
// no task is recorded as unsupported).
// A floor must serve its one kind and be recorded as unsupported in every
// other, both when started in the other transport and by Scenario.Run.
func TestSmokeEveryServer(t *testing.T) {
	bin := t.TempDir()
	ctx := context.Background()
	for _, srv := range benchServers {
		t.Run(srv.name, func(t *testing.T) {
			path := filepath.Join(bin, "server-"+srv.name)
			cmd := exec.Command("go", "build", "-o", path, srv.pkg)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("building %s: %v\n%s", srv.pkg, err, out)
			}
			spec := load.ServerSpec{Name: srv.name, Path: path, Kinds: srv.kinds}
			ours := srv.name == "snodo"
			if srv.kinds != nil {
				testFloor(t, spec)
				return
			}
			run := func(t *testing.T, http bool, scenario load.Scenario, measure func(*load.Target) (load.Result, error)) load.Result {
				t.Helper()
				p, err := load.Start(spec, http, scenario.ServerArgs(srv.name)...)
				if err != nil {
					t.Fatalf("starting: %v", err)
				}
				defer p.Kill()
				r, err := measure(&p.Target)
				if err != nil && !(load.IsUnsupported(err) && !ours) {
					t.Fatalf("%v (stderr: %s)", err, p.StderrTail())
				}
				if r.Errors != 0 {
					t.Fatalf("%d JSON-RPC errors: %+v", r.Errors, r)
				}
				return r
			}
			t.Run("stdio", func(t *testing.T) {
				r := run(t, false, load.Scenario{Kind: "stdio"}, func(tg *load.Target) (load.Result, error) {
					return load.RunStdio(ctx, tg, load.StdioLoad{Concurrency: 4, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinRequests: 20})
				})
				if r.Requests < 20 || r.P99us < r.P50us {
					t.Fatalf("implausible result: %+v", r)
				}
			})
			t.Run("http", func(t *testing.T) {
				r := run(t, true, load.Scenario{Kind: "http"}, func(tg *load.Target) (load.Result, error) {
					return load.RunHTTP(ctx, tg, load.HTTPLoad{Clients: 2, Warmup: 20 * time.Millisecond, Duration: 300 * time.Millisecond})
				})
				if r.Requests == 0 || r.P99us < r.P50us {
					t.Fatalf("implausible result: %+v", r)
				}
			})
			t.Run("storm", func(t *testing.T) {
				const calls = 10
				r := run(t, false, load.Scenario{Kind: "storm", Param: calls}, func(tg *load.Target) (load.Result, error) {
					return load.RunStorm(ctx, tg, load.StormConfig{Calls: calls, SleepMs: 60_000, Window: 5 * time.Second, Settle: 100 * time.Millisecond})
				})
				if r.Started == 0 {
					t.Fatalf("no sleep call ran: %+v", r)
				}
				if ours && (r.Started != calls || !r.Stopped || r.Late != 0 || r.StartedAfterCancel != 0) {
					t.Fatalf("storm: %+v", r)
				}
			})
			t.Run("variants", func(t *testing.T) {
				for _, v := range snodoserver.Variants {
					sc := load.Scenario{Kind: "variant", Param: 4, Variant: v, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond}
					if !ours {
						// Only snodo-go runs the variants: a peer is not started.
						if r := sc.Run(ctx, spec); !r.Unsupported || r.Err != "" {
							t.Fatalf("%s on %s: %+v, want unsupported", sc.Name(), srv.name, r)
						}
						continue
					}
					r := run(t, false, sc, func(tg *load.Target) (load.Result, error) {
						return load.RunStdio(ctx, tg, load.StdioLoad{Concurrency: sc.Param, Warmup: sc.Warmup, Duration: sc.Duration, MinRequests: 20})
					})
					if r.Requests < 20 || r.P99us < r.P50us {
						t.Fatalf("%s: implausible result: %+v", sc.Name(), r)
					}
				}
			})
			t.Run("httpstorm", func(t *testing.T) {
				const calls = 10
				sc := load.Scenario{Kind: "httpstorm", Param: calls}
				r := run(t, true, sc, func(tg *load.Target) (load.Result, error) {
					return load.RunHTTPStorm(ctx, tg, load.StormConfig{Calls: calls, SleepMs: 60_000, Window: 2 * time.Second, Settle: 100 * time.Millisecond})
				})
				if r.Started == 0 {
					t.Fatalf("no sleep call ran: %+v", r)
				}
				if ours && (r.Started != calls || !r.Stopped || r.Late != 0 || r.StartedAfterCancel != 0) {
					t.Fatalf("HTTP storm: %+v", r)
				}
			})
			t.Run("httplisten", func(t *testing.T) {
				const streams = 20
				sc := load.Scenario{Kind: "httplisten", Param: streams}
				r := run(t, true, sc, func(tg *load.Target) (load.Result, error) {
					return load.RunHTTPListen(ctx, tg, load.ListenConfig{Streams: streams, Timeout: 10 * time.Second})
				})
				if (ours || !r.Unsupported) && r.Streams != streams {
					t.Fatalf("HTTP listen: %+v", r)
				}
			})
			t.Run("task", func(t *testing.T) {
				for _, store := range snodoserver.TaskStores {
					sc := load.Scenario{Kind: "task", Param: 2, Variant: store}
					r := run(t, false, sc, func(tg *load.Target) (load.Result, error) {
						return load.RunTask(ctx, tg, load.TaskLoad{Concurrency: sc.Param, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinTasks: 5})
					})
					// snodo-go runs echo as a task on each store; a peer
					// either does too or is recorded as unsupported.
					if (ours || !r.Unsupported) && (r.Requests < 5 || r.P99us < r.P50us) {
						t.Fatalf("%s: %+v", sc.Name(), r)
					}
				}
			})
			t.Run("listen", func(t *testing.T) {
				const streams = 20
				r := run(t, false, load.Scenario{Kind: "listen", Param: streams}, func(tg *load.Target) (load.Result, error) {
					return load.RunListen(ctx, tg, load.ListenConfig{Streams: streams, Timeout: 10 * time.Second})
				})
				if !r.Unsupported && r.Streams != streams {
					t.Fatalf("listen: %+v", r)
				}
			})
		})
	}
}

// testFloor runs a floor's own kind as TestSmokeEveryServer runs a
// server's, and checks it is unsupported in every other kind.
func testFloor(t *testing.T, spec load.ServerSpec) {
	ctx := context.Background()
	for _, kind := range []string{"stdio", "http", "storm", "listen", "bigline", "httpstorm", "httplisten", "task"} {
		t.Run(kind, func(t *testing.T) {
			if !spec.Serves(kind) {
				if r := (load.Scenario{Kind: kind, Param: 1}).Run(ctx, spec); !r.Unsupported || r.Err != "" {
					t.Fatalf("%s in %s: %+v, want unsupported", spec.Name, kind, r)
				}
				if kind == "stdio" || kind == "http" {
					// Started in the other transport, the binary itself says so.
					if p, err := load.Start(spec, kind == "http"); !load.IsUnsupported(err) {
						if p != nil {
							p.Kill()
						}
						t.Fatalf("%s started for %s: %v", spec.Name, kind, err)
					}
				}
				return
			}
			p, err := load.Start(spec, kind == "http")
			if err != nil {
				t.Fatalf("starting: %v", err)
			}
			defer p.Kill()
			var r load.Result
			if kind == "stdio" {
				r, err = load.RunStdio(ctx, &p.Target, load.StdioLoad{Concurrency: 4, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, MinRequests: 20})
			} else {
				r, err = load.RunHTTP(ctx, &p.Target, load.HTTPLoad{Clients: 2, Warmup: 20 * time.Millisecond, Duration: 300 * time.Millisecond})
			}
			if err != nil {
				t.Fatalf("%v (stderr: %s)", err, p.StderrTail())
			}
			if r.Errors != 0 || r.Requests == 0 || r.P99us < r.P50us {
				t.Fatalf("implausible result: %+v", r)
			}
		})
	}
}
