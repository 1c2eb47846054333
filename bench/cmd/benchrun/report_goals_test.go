package main

// Tests of the goals table, the tasks' table and the HTTP storm's ratios
// to the stdio storm.

import (
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// The goals table checks the second round's goals: CPU against the
// floors, memory per sleeping call and per idle stream on both
// transports, both storms, and the 1 GiB line under 32 MiB; an HTTP
// listen run that opened fewer streams than asked says so.
func TestGoalsAreTheSecondRounds(t *testing.T) {
	r := func(server, scenario string, res load.Result) Record {
		res.Server, res.Scenario = server, scenario
		return Record{Round: 1, Result: res}
	}
	recs := []Record{
		r("snodo", "stdio C=16", load.Result{Requests: 1, Throughput: 1, CPUPerReq: 30}),
		r(floorStdio, "stdio C=16", load.Result{Requests: 1, Throughput: 1, CPUPerReq: 12}), // 2.5×: met
		r("snodo", "http K=16", load.Result{Requests: 1, Throughput: 1, CPUPerReq: 70}),
		r(floorHTTP, "http K=16", load.Result{Requests: 1, Throughput: 1, CPUPerReq: 50}), // 1.4×: not met
		r("snodo", "storm N=1000", load.Result{Started: 1000, Stopped: true, StopMs: 12, HeapPerSleepB: 5 << 10}),
		r("snodo", "http storm N=1000", load.Result{Started: 1000, Stopped: true, StopMs: 150, Late: 0, HeapPerSleepB: 20 << 10}),
		r("snodo", "listen N=10000", load.Result{Streams: 10000, HeapPerStreamB: 3.5 * 1024}),
		r("snodo", "http listen N=10000", load.Result{Param: 10000, Streams: 9000, HeapPerStreamB: 22 << 10}),
		r("snodo", "bigline 1024 MiB", load.Result{PeakRSSKiB: 40 << 10, OversizeRefused: true, NextAnswered: true}),
	}
	out := render(recs, nil, runInfo{Rounds: 1, Date: time.Unix(0, 0)})
	for _, want := range []string{
		"| stdio C=16 CPU per request ≤ 3.0× floor-stdio's | 2.50× | yes |",
		"| http K=16 CPU per request ≤ 1.3× floor-http's | 1.40× | **no** |",
		"| ≤ 6 KiB heap per sleeping call, stdio | 5.0 KiB | yes |",
		"| ≤ 6 KiB heap per sleeping call, HTTP | 20.0 KiB | **no** |",
		"| stdio storm: every cancelled call stopped within 100 ms, zero late responses | 12.0 ms (median), all rounds stopped: true; late responses 0 (median), 0 at most | yes |",
		"| HTTP storm: every cancelled call stopped within 100 ms, zero late responses | 150.0 ms (median), all rounds stopped: true; late responses 0 (median), 0 at most | **no** |",
		"| ≤ 4 KiB heap per idle listen stream (10,000 streams), stdio | 3.50 KiB | yes |",
		"| ≤ 4 KiB heap per idle listen stream (10,000 streams), HTTP | 22.00 KiB (only 9000 streams open: the open-file limit) | **no** |",
		"| a 1 GiB stdin line keeps peak RSS under 32 MiB (and is refused, and the next request served) | 40.0 MiB; refused and next served every round: true | **no** |",
		"| first round: stdio C=16 throughput ≥ 1.5× the faster peer | – | not measured |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "16 KiB") || strings.Contains(out, "64 MiB") {
		t.Fatalf("the first round's memory goals are still checked:\n%s", out)
	}
}

// A task scenario is reported against the plain call and the stdio floor
// of the same round; a peer that runs no task shows as not supported.
func TestTaskTable(t *testing.T) {
	plain := load.Scenario{Kind: "stdio", Param: 16}
	task := load.Scenario{Kind: "task", Param: 16, Variant: "memory"}
	if task.Plain() != plain {
		t.Fatalf("a task's plain case is %+v", task.Plain())
	}
	recs := []Record{
		{Round: 1, Result: load.Result{Server: "snodo", Scenario: plain.Name(), Requests: 1, Throughput: 10000, P50us: 10, P99us: 100, CPUPerReq: 40}},
		{Round: 1, Result: load.Result{Server: floorStdio, Scenario: plain.Name(), Requests: 1, Throughput: 50000, P50us: 5, P99us: 50, CPUPerReq: 8}},
		{Round: 1, Result: load.Result{Server: "snodo", Scenario: task.Name(), Requests: 1, Throughput: 2500, P50us: 40, P99us: 400, CPUPerReq: 160, GetsPerTask: 1.5}},
		{Round: 1, Result: load.Result{Server: "go-sdk", Scenario: task.Name(), Unsupported: true}},
	}
	out := render(recs, []load.Scenario{plain, task}, runInfo{Rounds: 1, Date: time.Unix(0, 0)})
	for _, want := range []string{
		"| task C=16 memory | snodo | 2500 | 40 | 400 | 160.0 | 1.5 |",
		"| 1/1 | 0.25× | 4.00× | 4.00× | 20.00× |",
		"| task C=16 memory | go-sdk | not supported yet |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}

// The HTTP storm's stop time is divided by the stdio storm's only in
// rounds where both stopped.
func TestHTTPStormRatioNeedsBothStopped(t *testing.T) {
	rec := func(server, scenario string, round int, stopped bool, ms float64) Record {
		return Record{Round: round, Result: load.Result{Server: server, Scenario: scenario, Started: 10, Stopped: stopped, StopMs: ms, HeapPerSleepB: 1024}}
	}
	stdio := load.Scenario{Kind: "storm", Param: 10}
	httpStorm := load.Scenario{Kind: "httpstorm", Param: 10}
	if httpStorm.Plain() != stdio {
		t.Fatalf("the HTTP storm's plain case is %+v", httpStorm.Plain())
	}
	recs := []Record{
		rec("snodo", stdio.Name(), 1, true, 10), rec("snodo", httpStorm.Name(), 1, true, 40),
		rec("go-sdk", stdio.Name(), 1, true, 10), rec("go-sdk", httpStorm.Name(), 1, false, 0),
	}
	out := render(recs, []load.Scenario{stdio, httpStorm}, runInfo{Rounds: 1, Date: time.Unix(0, 0)})
	for _, want := range []string{"| snodo | 4.00× | 1.00× |", "| go-sdk | – | 1.00× |"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}
