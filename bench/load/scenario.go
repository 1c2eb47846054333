package load

import (
	"context"
	"fmt"
	"time"
)

// Scenario is one measurement a run repeats for every server.
type Scenario struct {
	// Kind is "stdio", "http", "storm", "listen", "bigline", "variant"
	// (a stdio load of snodo-go's echo served another way), "httpstorm"
	// and "httplisten" (the storm and the listen streams over Streamable
	// HTTP) or "task" (echo run as a task and followed to its end, on
	// stdio).
	Kind string
	// Variant names the way echo is served in a "variant" scenario
	// (server-snodo's -variant: "actor", "limited", "proxy"), or the task
	// store of a "task" scenario (server-snodo's -tasks: "memory",
	// "bolt").
	Variant string
	// Param is C, K, or the number of calls or streams.
	Param int
	// Warmup and Duration set the load window (stdio, http).
	Warmup, Duration time.Duration
	// Once: measured in the first round only (its figure is not noisy
	// and a slow server makes it long).
	Once bool
}

// Name is the scenario's label in reports, such as "stdio C=16".
func (s Scenario) Name() string {
	switch s.Kind {
	case "stdio":
		return fmt.Sprintf("stdio C=%d", s.Param)
	case "http":
		return fmt.Sprintf("http K=%d", s.Param)
	case "storm":
		return fmt.Sprintf("storm N=%d", s.Param)
	case "listen":
		return fmt.Sprintf("listen N=%d", s.Param)
	case "bigline":
		return fmt.Sprintf("bigline %d MiB", s.Param)
	case "variant":
		return fmt.Sprintf("stdio C=%d %s", s.Param, s.Variant)
	case "httpstorm":
		return fmt.Sprintf("http storm N=%d", s.Param)
	case "httplisten":
		return fmt.Sprintf("http listen N=%d", s.Param)
	case "task":
		return fmt.Sprintf("task C=%d %s", s.Param, s.Variant)
	}
	return s.Kind
}

// HTTP reports whether the scenario runs over Streamable HTTP.
func (s Scenario) HTTP() bool {
	return s.Kind == "http" || s.Kind == "httpstorm" || s.Kind == "httplisten"
}

// Plain is the scenario s extends: for a variant or a task, the plain
// echo call at the same C on stdio; for the HTTP storm and listen
// streams, the same on stdio; the scenario itself for other kinds.
func (s Scenario) Plain() Scenario {
	switch s.Kind {
	case "variant", "task":
		return Scenario{Kind: "stdio", Param: s.Param, Warmup: s.Warmup, Duration: s.Duration}
	case "httpstorm":
		return Scenario{Kind: "storm", Param: s.Param}
	case "httplisten":
		return Scenario{Kind: "listen", Param: s.Param}
	}
	return s
}

// Supports reports whether the scenario runs on spec: a variant only on
// snodo-go (the peers have no actors or policies to compare), any other
// kind on the servers that serve it.
func (s Scenario) Supports(spec ServerSpec) bool {
	if s.Kind == "variant" {
		return spec.Name == "snodo"
	}
	return spec.Serves(s.Kind)
}

// ServerArgs are the extra arguments a server needs for the scenario:
// the cancellation storms must be able to hold every call at once, and
// the HTTP storm and listen streams one connection per call or stream, so
// each server is given the knobs it has for that (see
// docs/PERFORMANCE.md). A task scenario gives snodo-go its store; the
// peers get nothing, and show whether they run echo as a task.
func (s Scenario) ServerArgs(server string) []string {
	switch {
	case s.Kind == "variant":
		return []string{"-variant", s.Variant}
	case s.Kind == "task" && server == "snodo":
		return []string{"-tasks", s.Variant}
	case s.Kind == "storm" && server == "snodo":
		return []string{"-max-concurrency", fmt.Sprint(s.Param)}
	case s.Kind == "storm" && server == "mcp-go":
		return []string{"-workers", "100", "-queue", fmt.Sprint(s.Param)}
	case s.Kind == "httpstorm" && server == "snodo":
		return []string{"-max-concurrency", fmt.Sprint(s.Param), "-max-connections", fmt.Sprint(s.Param + connectionMargin)}
	case s.Kind == "httplisten" && server == "snodo":
		return []string{"-max-connections", fmt.Sprint(s.Param + connectionMargin)}
	}
	return nil
}

// connectionMargin is the connections a server's cap allows beyond the
// ones a scenario holds.
const connectionMargin = 64

// Run measures one server in the scenario: it starts the server, runs the
// scenario, reads the peak RSS and stops the server. A server that does
// not serve the scenario's kind is not started: the result is unsupported.
func (s Scenario) Run(ctx context.Context, spec ServerSpec) Result {
	if !s.Supports(spec) {
		return Result{Server: spec.Name, Scenario: s.Kind, Param: s.Param, Unsupported: true}
	}
	p, err := Start(spec, s.HTTP(), s.ServerArgs(spec.Name)...)
	if err != nil {
		r := Result{Server: spec.Name, Scenario: s.Kind, Param: s.Param}
		if IsUnsupported(err) {
			r.Unsupported = true
		} else {
			r.Err = err.Error()
		}
		return r
	}
	r, err := s.RunOn(ctx, &p.Target)
	r.Server = spec.Name
	if err != nil && !IsUnsupported(err) && r.Err == "" {
		r.Err = err.Error()
	}
	if r.Err != "" {
		if tail := p.StderrTail(); tail != "" {
			r.Err += " (stderr: " + tail + ")"
		}
	}
	if hwm, _, err := ProcMem(p.PID); err == nil && hwm > r.PeakRSSKiB {
		r.PeakRSSKiB = hwm
	}
	if s.Kind == "storm" || s.Kind == "httpstorm" || s.Kind == "bigline" {
		p.Kill() // calls a server failed to stop may run for a minute
	} else {
		p.Stop()
	}
	return r
}

// RunOn runs the scenario against an already running target.
func (s Scenario) RunOn(ctx context.Context, t *Target) (Result, error) {
	switch s.Kind {
	case "stdio", "variant":
		return RunStdio(ctx, t, StdioLoad{Concurrency: s.Param, Warmup: s.Warmup, Duration: s.Duration})
	case "http":
		return RunHTTP(ctx, t, HTTPLoad{Clients: s.Param, Warmup: s.Warmup, Duration: s.Duration})
	case "storm":
		return RunStorm(ctx, t, StormConfig{Calls: s.Param, SleepMs: 60_000, Window: 10 * time.Second, Settle: time.Second})
	case "listen":
		return RunListen(ctx, t, ListenConfig{Streams: s.Param, Timeout: 30 * time.Second})
	case "bigline":
		return RunBigLine(ctx, t, BigLineConfig{MiB: s.Param, Timeout: 30 * time.Second})
	case "httpstorm":
		return RunHTTPStorm(ctx, t, StormConfig{Calls: s.Param, SleepMs: 60_000, Window: 10 * time.Second, Settle: time.Second})
	case "httplisten":
		return RunHTTPListen(ctx, t, ListenConfig{Streams: s.Param, Timeout: 60 * time.Second})
	case "task":
		return RunTask(ctx, t, TaskLoad{Concurrency: s.Param, Warmup: s.Warmup, Duration: s.Duration})
	}
	return Result{}, fmt.Errorf("load: unknown scenario kind %q", s.Kind)
}
