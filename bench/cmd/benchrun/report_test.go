package main

import (
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/load"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// A round whose responses include JSON-RPC errors is a failed round: its
// figures count in no median or ratio, and the report lists it.
func TestRoundWithJSONRPCErrorsIsFailed(t *testing.T) {
	sc := load.Scenario{Kind: "stdio", Param: 16}
	rec := func(server string, round int, thr float64, errs int64) Record {
		return Record{Round: round, Result: load.Result{Server: server, Scenario: sc.Name(), Param: 16, Requests: 100, Throughput: thr, P50us: 10, P99us: 20, Errors: errs}}
	}
	recs := []Record{
		rec("snodo", 1, 1000, 0), rec("go-sdk", 1, 500, 0), rec("mcp-go", 1, 500, 0),
		rec("snodo", 2, 9999, 3), rec("go-sdk", 2, 500, 0), rec("mcp-go", 2, 500, 0),
	}
	if !failed(recs[3].Result) || good(recs[3].Result) || !good(recs[0].Result) {
		t.Fatal("a measurement with JSON-RPC errors was not failed")
	}
	tb := table{recs: recs}
	if thr, n := med(tb.get(sc.Name(), "snodo"), func(r load.Result) float64 { return r.Throughput }); n != 1 || thr != 1000 {
		t.Fatalf("median over good rounds: %v of %d, want 1000 of 1", thr, n)
	}
	if x := tb.ratioMedian(sc.Name(), "go-sdk", 2, func(r load.Result) float64 { return r.Throughput }, true); x != 2 {
		t.Fatalf("ratio %v, want 2 (round 2 left out)", x)
	}
	out := render(recs, []load.Scenario{sc}, runInfo{Rounds: 2, Date: time.Unix(0, 0), Commit: "test"})
	if !strings.Contains(out, "| stdio C=16 | snodo | 1000 |") || !strings.Contains(out, "| 1/2 |") {
		t.Fatalf("the failed round counted:\n%s", out)
	}
	if !strings.Contains(out, "round 2, stdio C=16, snodo: 3 responses were JSON-RPC errors") {
		t.Fatalf("the failed round is not listed:\n%s", out)
	}
	// Every round failed: the row says so instead of showing figures.
	recs[0].Errors = 1
	if out := render(recs, []load.Scenario{sc}, runInfo{Rounds: 2, Date: time.Unix(0, 0)}); !strings.Contains(out, "| stdio C=16 | snodo | failed |") {
		t.Fatalf("a server whose every round failed:\n%s", out)
	}
}

// The report says under what load it was measured.
func TestReportStatesTheLoad(t *testing.T) {
	out := render(nil, nil, runInfo{Rounds: 1, Date: time.Unix(0, 0), LoadBefore: "1.70", LoadAfter: "5.02"})
	if !strings.Contains(out, "load average 1.70 before the run, 5.02 at its end") {
		t.Fatalf("no load in the header:\n%s", out)
	}
	if out := render(nil, nil, runInfo{Rounds: 1, Date: time.Unix(0, 0)}); !strings.Contains(out, "load average not known") {
		t.Fatalf("an unknown load is not said:\n%s", out)
	}
}

// Every server's figures are divided by the floor of the scenario's
// transport measured in the same round, and a floor outside its
// transport is shown as n/a.
func TestFloorRatios(t *testing.T) {
	rec := func(server, scenario string, round int, thr, cpu float64) Record {
		return Record{Round: round, Result: load.Result{Server: server, Scenario: scenario, Requests: 100, Throughput: thr, CPUPerReq: cpu, P50us: 10, P99us: 20}}
	}
	unsup := func(server, scenario string, round int) Record {
		return Record{Round: round, Result: load.Result{Server: server, Scenario: scenario, Unsupported: true}}
	}
	stdio := load.Scenario{Kind: "stdio", Param: 16}
	storm := load.Scenario{Kind: "storm", Param: 10}
	var recs []Record
	for round := 1; round <= 2; round++ {
		// The floor is twice as fast in round 1 and four times in round 2,
		// so the medians of the per-round ratios are 0.375 and 3.00.
		f := float64(round * 2)
		recs = append(recs,
			rec("snodo", stdio.Name(), round, 1000, 10),
			rec("go-sdk", stdio.Name(), round, 500, 20),
			rec("mcp-go", stdio.Name(), round, 250, 40),
			rec(floorStdio, stdio.Name(), round, 1000*f, 10/f),
			unsup(floorHTTP, stdio.Name(), round),
			unsup(floorStdio, storm.Name(), round),
		)
	}
	tb := table{recs: recs}
	thr := func(r load.Result) float64 { return r.Throughput }
	if x := tb.ratioMedianOf(stdio.Name(), "go-sdk", floorStdio, 2, thr, true); x != 0.1875 {
		t.Fatalf("go-sdk req/s ÷ floor %v, want 0.1875", x)
	}
	out := render(recs, []load.Scenario{stdio, storm}, runInfo{Rounds: 2, Date: time.Unix(0, 0)})
	for _, want := range []string{
		"| case | server | req/s ÷ floor-stdio | CPU/req ÷ floor-stdio |",
		"| stdio C=16 | snodo | 0.38× | 3.00× |",
		"| stdio C=16 | mcp-go | 0.09× | 12.00× |",
		"| stdio C=16 | floor-http | n/a |",
		"| floor-stdio | n/a |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}
