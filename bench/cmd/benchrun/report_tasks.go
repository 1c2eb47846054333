package main

// The tasks' table: echo run as a task and followed to its end, per task
// store, against the plain call and the stdio floor.

import (
	"github.com/snodo-go/snodo/bench/load"
)

// renderTasks writes the "task" scenarios: every server's figures (the
// peers show whether they run echo as a task), and snodo-go's tasks per
// second, p99 and CPU per task over the plain call's (the stdio case with
// the same C), and its CPU per task over the stdio floor's CPU per
// request, each computed within a round.
func renderTasks(w func(string, ...any), t table, scenarios []load.Scenario, rounds int) {
	var ts []load.Scenario
	for _, sc := range scenarios {
		if sc.Kind == "task" {
			ts = append(ts, sc)
		}
	}
	if len(ts) == 0 {
		return
	}
	w("### A task created and completed, per task store, stdio\n\n")
	w("Each of C client loops sends `tools/call echo` declaring the tasks extension (io.modelcontextprotocol/tasks), which answers with a task handle, then `tasks/get` as soon as the previous answer said the task still works, until it is completed; then the next task. ")
	w("A task's latency runs from the `tools/call` to the `tasks/get` that saw it completed; its CPU counts every request of it. ")
	w("snodo-go runs echo as a `tasks.Optional` tool on `taskstore.NewMemory` (memory) or `taskstore/boltstore` (bolt, one file in a temporary directory); a server that answers the call without a task does not run tasks (\"not supported yet\"). ")
	w("The JetStream store (`backplane.NewTaskStore`) lives in the backplane module and would bring NATS into this module, so it is not run here; its fan-out latency is `backplane/bench_test.go`'s (see \"Backplane event fan-out\" under Micro-benchmarks). ")
	w("Ratios are computed within each round against the plain call (snodo-go's stdio case with the same C) and the stdio floor's CPU per request in that case, then the median.\n\n")
	w("| case | server | tasks/s | p50 µs | p99 µs | server CPU µs/task | tasks/get per task | peak RSS MiB | rounds ok | tasks/s ÷ plain | p99 ÷ plain | CPU ÷ plain | CPU ÷ %s |\n", floorStdio)
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	thr := func(r load.Result) float64 { return r.Throughput }
	p99f := func(r load.Result) float64 { return r.P99us }
	cpuf := func(r load.Result) float64 { return r.CPUPerReq }
	for _, sc := range ts {
		name, plain := sc.Name(), sc.Plain().Name()
		for _, srv := range servers {
			if isFloor(srv.name) {
				continue
			}
			rs := t.get(name, srv.name)
			if st := statusFor(srv.name, rs); st != "" {
				w("| %s | %s | %s | | | | | | 0/%d | | | | |\n", name, srv.name, st, len(rs))
				continue
			}
			tp, n := med(rs, thr)
			p50, _ := med(rs, func(r load.Result) float64 { return r.P50us })
			p99, _ := med(rs, p99f)
			cpu, _ := med(rs, cpuf)
			gets, _ := med(rs, func(r load.Result) float64 { return r.GetsPerTask })
			rss, _ := med(rs, func(r load.Result) float64 { return float64(r.PeakRSSKiB) / 1024 })
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %d/%d | %s | %s | %s | %s |\n", name, srv.name, num(tp, 0), num(p50, 0), num(p99, 0), num(cpu, 1), num(gets, 1), num(rss, 1), n, len(rs),
				ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, thr)),
				ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, p99f)),
				ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, cpuf)),
				ratio(t.acrossMedian(name, srv.name, plain, floorStdio, rounds, cpuf)))
		}
	}
	w("\n")
}
