package load

import (
	"context"
	"fmt"
	"time"
)

// Scenario is one measurement a run repeats for every server.
type Scenario struct {
	// Kind is "stdio", "http", "storm", "listen", "bigline" or "variant"
	// (a stdio load of snodo-go's echo served another way).
	Kind string
	// Variant names the way echo is served in a "variant" scenario
	// (server-snodo's -variant: "actor", "limited", "proxy").
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
	}
	return s.Kind
}

// Plain is the scenario a variant extends (the plain echo call at the
// same C); the scenario itself for other kinds.
func (s Scenario) Plain() Scenario {
	if s.Kind != "variant" {
		return s
	}
	return Scenario{Kind: "stdio", Param: s.Param, Warmup: s.Warmup, Duration: s.Duration}
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
// the cancellation storm must be able to hold every call at once, so each
// server is given the knobs it has for that (see docs/PERFORMANCE.md).
func (s Scenario) ServerArgs(server string) []string {
	if s.Kind == "variant" {
		return []string{"-variant", s.Variant}
	}
	if s.Kind != "storm" {
		return nil
	}
	switch server {
	case "snodo":
		return []string{"-max-concurrency", fmt.Sprint(s.Param)}
	case "mcp-go":
		return []string{"-workers", "100", "-queue", fmt.Sprint(s.Param)}
	}
	return nil
}

// Run measures one server in the scenario: it starts the server, runs the
// scenario, reads the peak RSS and stops the server. A server that does
// not serve the scenario's kind is not started: the result is unsupported.
func (s Scenario) Run(ctx context.Context, spec ServerSpec) Result {
	if !s.Supports(spec) {
		return Result{Server: spec.Name, Scenario: s.Kind, Param: s.Param, Unsupported: true}
	}
	p, err := Start(spec, s.Kind == "http", s.ServerArgs(spec.Name)...)
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
	if s.Kind == "storm" || s.Kind == "bigline" {
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
	}
	return Result{}, fmt.Errorf("load: unknown scenario kind %q", s.Kind)
}
