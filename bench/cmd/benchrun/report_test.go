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
