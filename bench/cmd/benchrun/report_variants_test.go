package main

import (
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// A variant's table lists snodo-go alone, with its ratios to the plain
// call of the same round (a round whose plain call failed is left out).
func TestVariantTableRatiosToThePlainCall(t *testing.T) {
	plain := load.Scenario{Kind: "stdio", Param: 16}
	actor := load.Scenario{Kind: "variant", Param: 16, Variant: "actor"}
	rec := func(sc load.Scenario, server string, round int, thr float64, errs int64) Record {
		return Record{Round: round, Result: load.Result{Server: server, Scenario: sc.Name(), Param: 16, Requests: 100, Throughput: thr, P50us: 10, P99us: 20, CPUPerReq: 5, Errors: errs}}
	}
	recs := []Record{
		rec(plain, "snodo", 1, 1000, 0), rec(actor, "snodo", 1, 800, 0),
		rec(plain, "snodo", 2, 100, 1), rec(actor, "snodo", 2, 900, 0),
		{Round: 1, Result: load.Result{Server: "go-sdk", Scenario: actor.Name(), Param: 16, Unsupported: true}},
	}
	out := render(recs, []load.Scenario{plain, actor}, runInfo{Rounds: 2, Date: time.Unix(0, 0), Commit: "test"})
	i := strings.Index(out, "### Variants")
	if i < 0 {
		t.Fatalf("no variants table:\n%s", out)
	}
	table := out[i:]
	if j := strings.Index(table[4:], "###"); j >= 0 {
		table = table[:j+4]
	}
	if !strings.Contains(table, "| stdio C=16 actor | 850 |") || !strings.Contains(table, "| 2/2 | 0.80× |") {
		t.Fatalf("variant row (median 850, ratio 0.80 from round 1 only):\n%s", table)
	}
	if strings.Contains(table, "go-sdk") {
		t.Fatalf("a peer in the variants table:\n%s", table)
	}
}
