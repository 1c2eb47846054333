package main

// The variants' table: snodo-go's echo served another way, each against
// the plain call measured in the same run.

import (
	"github.com/snodo-go/snodo/bench/load"
)

// renderVariants writes the table of the "variant" scenarios (snodo-go
// only, so no peer column): their figures and, computed within each round,
// their throughput, p99 and CPU per request over the plain call's.
func renderVariants(w func(string, ...any), t table, scenarios []load.Scenario, rounds int) {
	var vs []load.Scenario
	for _, sc := range scenarios {
		if sc.Kind == "variant" {
			vs = append(vs, sc)
		}
	}
	if len(vs) == 0 {
		return
	}
	w("### Variants of the plain call: snodo-go's `tools/call echo` served another way, stdio\n\n")
	w("Only snodo-go runs these (the peers have no actors or component policies to compare). ")
	w("actor: echo is a long-lived actor's handler (`supervisor.Named`); limited: echo under `dispatch.WithConcurrencyLimit` and `dispatch.WithRateLimit` whose bounds the load never reaches; proxy: the plain server as a remote reached through `client` in process, served by the Runtime `proxy.Dial` builds from it. ")
	w("Ratios are the variant ÷ the plain call (the stdio case with the same C) within each round, then the median.\n\n")
	w("| case | req/s | p50 µs | p99 µs | server CPU µs/req | peak RSS MiB | rounds ok | req/s ÷ plain | p99 ÷ plain | CPU/req ÷ plain |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	thr := func(r load.Result) float64 { return r.Throughput }
	p99f := func(r load.Result) float64 { return r.P99us }
	cpuf := func(r load.Result) float64 { return r.CPUPerReq }
	for _, sc := range vs {
		name := sc.Name()
		rs := t.get(name, "snodo")
		if st := statusFor("snodo", rs); st != "" {
			w("| %s | %s | | | | | 0/%d | | | |\n", name, st, len(rs))
			continue
		}
		tp, n := med(rs, thr)
		p50, _ := med(rs, func(r load.Result) float64 { return r.P50us })
		p99, _ := med(rs, p99f)
		cpu, _ := med(rs, cpuf)
		rss, _ := med(rs, func(r load.Result) float64 { return float64(r.PeakRSSKiB) / 1024 })
		plain := sc.Plain().Name()
		w("| %s | %s | %s | %s | %s | %s | %d/%d | %s | %s | %s |\n", name, num(tp, 0), num(p50, 0), num(p99, 0), num(cpu, 1), num(rss, 1), n, len(rs),
			ratio(t.overPlain(name, plain, rounds, thr)), ratio(t.overPlain(name, plain, rounds, p99f)), ratio(t.overPlain(name, plain, rounds, cpuf)))
	}
	w("\n")
}

// overPlain is the median over rounds of f(snodo in scenario) ÷
// f(snodo in plain) measured in the same round.
func (t table) overPlain(scenario, plain string, rounds int, f func(load.Result) float64) float64 {
	return t.acrossMedian(scenario, "snodo", plain, "snodo", rounds, f)
}
