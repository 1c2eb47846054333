// This file is the probe: tools whose behaviour a test scripts call by
// call.

package testfixture

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// Probe serves tools whose behaviour a randomized test scripts call by
// call, and lets the test see what each handler did. Every call carries a
// tag (its "tag" argument) that names its Gate; results echo the tag, so
// a test can tell which call a response answers even when ids repeat.
//
// The tools:
//
//	probe_echo            returns the tag
//	probe_slow            waits "ms" milliseconds (or until cancelled), returns the tag
//	probe_panic           panics
//	probe_hold            waits for Release or cancellation; returns "released:" + tag
//	probe_stubborn        waits for Release, ignoring cancellation; returns "released:" + tag
//	probe_progress        reports progress 1/2 and 2/2, returns the tag
//	probe_progress_hold   reports progress 1/1, then behaves as probe_hold
type Probe struct {
	mu    sync.Mutex
	gates map[string]*Gate
}

// Gate is one call's view into its handler.
type Gate struct {
	// Entered is closed when the handler starts.
	Entered chan struct{}
	// Cancelled is closed when the handler sees its context ended before
	// it returns.
	Cancelled chan struct{}
	// Returned is closed when the handler returns (or panics).
	Returned chan struct{}

	release     chan struct{}
	releaseOnce sync.Once
	enterOnce   sync.Once
	cancelOnce  sync.Once
	returnOnce  sync.Once
}

// NewProbe returns an empty probe.
func NewProbe() *Probe { return &Probe{gates: map[string]*Gate{}} }

// Gate returns the gate of tag, creating it on first use.
func (p *Probe) Gate(tag string) *Gate {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.gates[tag]
	if !ok {
		g = &Gate{Entered: make(chan struct{}), Cancelled: make(chan struct{}), Returned: make(chan struct{}), release: make(chan struct{})}
		p.gates[tag] = g
	}
	return g
}

// Release lets a held handler return.
func (g *Gate) Release() { g.releaseOnce.Do(func() { close(g.release) }) }

func (g *Gate) enter()    { g.enterOnce.Do(func() { close(g.Entered) }) }
func (g *Gate) cancel()   { g.cancelOnce.Do(func() { close(g.Cancelled) }) }
func (g *Gate) returned() { g.returnOnce.Do(func() { close(g.Returned) }) }

// ReleaseAll releases every gate.
func (p *Probe) ReleaseAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.gates {
		g.Release()
	}
}

// WaitReturned waits until every handler that entered has returned, and
// fails t if one has not within testkit.DefaultTimeout.
func (p *Probe) WaitReturned(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	gates := make(map[string]*Gate, len(p.gates))
	for k, g := range p.gates {
		gates[k] = g
	}
	p.mu.Unlock()
	deadline := time.After(testkit.DefaultTimeout)
	for tag, g := range gates {
		select {
		case <-g.Entered:
		default:
			continue
		}
		select {
		case <-g.Returned:
		case <-deadline:
			t.Fatalf("testfixture: the handler of %q never returned", tag)
		}
	}
}

type probeArgs struct {
	Tag string `json:"tag"`
	MS  int    `json:"ms"`
}

// Options returns the Runtime options that register the probe's tools.
func (p *Probe) Options() []dispatch.Option {
	tool := func(name string, run func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error)) dispatch.Option {
		return dispatch.WithTool(mcp.Tool{Name: name}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a probeArgs
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			g := p.Gate(a.Tag)
			defer g.returned()
			return run(ctx, g, a)
		})
	}
	hold := func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
		g.enter()
		select {
		case <-g.release:
			if ctx.Err() != nil {
				g.cancel() // both were ready; select chose the release
			}
			return mcp.TextResult("released:" + a.Tag), nil
		case <-ctx.Done():
			g.cancel()
			return nil, ctx.Err()
		}
	}
	return []dispatch.Option{
		tool("probe_echo", func(_ context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			g.enter()
			return mcp.TextResult(a.Tag), nil
		}),
		tool("probe_slow", func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			g.enter()
			timer := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-timer.C:
				return mcp.TextResult(a.Tag), nil
			case <-ctx.Done():
				g.cancel()
				return nil, ctx.Err()
			}
		}),
		tool("probe_panic", func(_ context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			g.enter()
			panic("probe: " + a.Tag)
		}),
		tool("probe_hold", hold),
		tool("probe_stubborn", func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			g.enter()
			<-g.release
			if ctx.Err() != nil {
				g.cancel()
			}
			return mcp.TextResult("released:" + a.Tag), nil
		}),
		tool("probe_progress", func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			g.enter()
			for i := 1; i <= 2; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2}); err != nil {
					g.cancel()
					return nil, err
				}
			}
			return mcp.TextResult(a.Tag), nil
		}),
		tool("probe_progress_hold", func(ctx context.Context, g *Gate, a probeArgs) (*mcp.CallToolResult, error) {
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 1}); err != nil {
				g.enter()
				g.cancel()
				return nil, err
			}
			return hold(ctx, g, a)
		}),
	}
}

// ProbeCall encodes a 2026-07-28 tools/call of a probe tool. Calls to
// probe_progress and probe_progress_hold carry the tag as their progress
// token.
func ProbeCall(id any, tool, tag string, ms int) []byte {
	params := map[string]any{"name": tool, "arguments": map[string]any{"tag": tag, "ms": ms}}
	if tool == "probe_progress" || tool == "probe_progress_hold" {
		params["_meta"] = map[string]any{"progressToken": tag}
	}
	return testkit.Request(id, "tools/call", params)
}

// ProbeText returns the text of a probe tool's result frame, or "".
func ProbeText(f *testkit.Frame) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if f == nil || f.Result == nil || json.Unmarshal(f.Result, &r) != nil || len(r.Content) != 1 {
		return ""
	}
	return r.Content[0].Text
}
