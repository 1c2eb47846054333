package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// Progress names the round, the scenario and the server, and estimates
// the time left from the load windows first, then from what the
// measurements took.
func TestProgressEstimatesTimeLeft(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	scenarios := []load.Scenario{
		{Kind: "stdio", Param: 1, Warmup: time.Second, Duration: 3 * time.Second},
		{Kind: "storm", Param: 1000},
		{Kind: "bigline", Param: 1, Once: true},
	}
	p := newProgress(&out, scenarios, 2, func(string) int { return 3 })
	p.now = func() time.Time { return clock }
	if p.total != 3*2+3*2+3 {
		t.Fatalf("%d measurements planned", p.total)
	}
	// Nothing measured: the storm has no window to estimate from.
	p.begin(1, scenarios[0], "snodo")
	if line := out.String(); !strings.Contains(line, "[round 1/2, scenario 1/3] stdio C=1 on snodo: measurement 1 of 15, time left not known yet") {
		t.Fatalf("first line: %q", line)
	}
	clock = clock.Add(10 * time.Second)
	p.end(scenarios[0])
	out.Reset()
	// stdio: 5 left at 10 s each (measured); storm and bigline: 9 left
	// at the mean of what was measured, 10 s.
	p.begin(1, scenarios[1], "go-sdk")
	if line := out.String(); !strings.Contains(line, "[round 1/2, scenario 2/3] storm N=1000 on go-sdk: measurement 2 of 15, about 2m20s left") {
		t.Fatalf("second line: %q", line)
	}
	clock = clock.Add(30 * time.Second)
	p.end(scenarios[1])
	if d, ok := p.estimate(); !ok || d != 5*10*time.Second+5*30*time.Second+3*20*time.Second {
		t.Fatalf("estimate %v %v", d, ok)
	}
}

// A floor outside its transport is recorded as unsupported under the
// scenario's name without being measured: no progress line, no
// measurement counted.
func TestMeasureSkipsAFloorOutsideItsKind(t *testing.T) {
	var out bytes.Buffer
	sc := load.Scenario{Kind: "storm", Param: 10}
	p := newProgress(&out, []load.Scenario{sc}, 1, func(string) int { return 0 })
	spec := load.ServerSpec{Name: floorStdio, Path: "/nonexistent/server-floor-stdio", Kinds: []string{"stdio"}}
	r := measure(context.Background(), p, 1, sc, spec)
	if !r.Unsupported || r.Scenario != sc.Name() || r.Server != floorStdio || r.Round != 1 {
		t.Fatalf("record: %+v", r)
	}
	if p.done != 0 || out.Len() != 0 {
		t.Fatalf("measured: %d done, output %q", p.done, out.String())
	}
}
