package main

// The "Goals, this run" table: the second round's goals checked against
// the run, then the first round's goals against the peers.

import (
	"fmt"
	"math"
	"strings"

	"github.com/snodo-go/snodo/bench/load"
)

// verdict says whether a goal was met, or that it was not measured.
func verdict(ok, measured bool) string {
	switch {
	case !measured:
		return "not measured"
	case ok:
		return "yes"
	}
	return "**no**"
}

// renderTargets checks this run against the performance goals that
// docs/PERFORMANCE.md states: the second round's (against the floors and
// in absolute figures), then the first round's (against the peers).
func renderTargets(w func(string, ...any), t table, rounds int) {
	w("### Goals, this run\n\nThe second round's goals, then the first round's (against the peers).\n\n| goal | measured | met |\n|---|---|---|\n")
	cpu := func(r load.Result) float64 { return r.CPUPerReq }
	for _, c := range []struct {
		name, floor string
		max         float64
	}{{"stdio C=16", floorStdio, 3.0}, {"http K=16", floorHTTP, 1.3}} {
		x := t.ratioMedianOf(c.name, "snodo", c.floor, rounds, cpu, false)
		w("| %s CPU per request ≤ %.1f× %s's | %s | %s |\n", c.name, c.max, c.floor, ratio(x), verdict(x <= c.max, !math.IsNaN(x)))
	}
	for _, c := range []struct{ name, label string }{{"storm N=1000", "stdio"}, {"http storm N=1000", "HTTP"}} {
		rs := t.get(c.name, "snodo")
		if st := status(rs); st != "" {
			w("| ≤ 6 KiB heap per sleeping call, %s | snodo-go: %s | not measured |\n", c.label, st)
			w("| %s storm: every cancelled call stopped within 100 ms, zero late responses | snodo-go: %s | not measured |\n", c.label, st)
			continue
		}
		heap, _ := med(rs, func(r load.Result) float64 { return r.HeapPerSleepB })
		w("| ≤ 6 KiB heap per sleeping call, %s | %s KiB | %s |\n", c.label, num(heap/1024, 1), verdict(heap <= 6<<10, true))
		stopMs, _ := med(rs, func(r load.Result) float64 { return r.StopMs })
		late, _ := med(rs, func(r load.Result) float64 { return float64(r.Late) })
		all, worstLate := true, int64(0)
		for _, r := range rs {
			all = all && r.Stopped
			worstLate = max(worstLate, r.Late)
		}
		w("| %s storm: every cancelled call stopped within 100 ms, zero late responses | %s ms (median), all rounds stopped: %t; late responses %s (median), %d at most | %s |\n",
			c.label, num(stopMs, 1), all, num(late, 0), worstLate, verdict(all && stopMs <= 100 && worstLate == 0, true))
	}
	for _, c := range []struct{ name, label string }{{"listen N=10000", "stdio"}, {"http listen N=10000", "HTTP"}} {
		rs := t.get(c.name, "snodo")
		if st := status(rs); st != "" {
			w("| ≤ 4 KiB heap per idle listen stream (10,000 streams), %s | snodo-go: %s | not measured |\n", c.label, st)
			continue
		}
		heap, _ := med(rs, func(r load.Result) float64 { return r.HeapPerStreamB })
		open, _ := med(rs, func(r load.Result) float64 { return float64(r.Streams) })
		streams := ""
		if open < 10000 {
			streams = fmt.Sprintf(" (only %.0f streams open: the open-file limit)", open)
		}
		w("| ≤ 4 KiB heap per idle listen stream (10,000 streams), %s | %s KiB%s | %s |\n", c.label, num(heap/1024, 2), streams, verdict(heap <= 4<<10, true))
	}
	if rs := t.get("bigline 1024 MiB", "snodo"); len(rs) > 0 {
		var peak []float64
		ok := true
		for _, r := range rs {
			peak = append(peak, float64(r.PeakRSSKiB)/1024)
			ok = ok && r.OversizeRefused && r.NextAnswered
		}
		p := median(peak)
		w("| a 1 GiB stdin line keeps peak RSS under 32 MiB (and is refused, and the next request served) | %s MiB; refused and next served every round: %t | %s |\n", num(p, 1), ok, verdict(p < 32 && ok, true))
	} else {
		w("| a 1 GiB stdin line keeps peak RSS under 32 MiB | not run | not measured |\n")
	}

	// The first round's goals, against the peers.
	thr := func(r load.Result) float64 { return r.Throughput }
	p99 := func(r load.Result) float64 { return r.P99us }
	for _, c := range []struct {
		name string
		min  float64
	}{{"stdio C=16", 1.5}, {"stdio C=256", 1.5}, {"http K=16", 1.2}, {"http K=64", 1.2}} {
		x := t.ratioMedian(c.name, "faster", rounds, thr, true)
		w("| first round: %s throughput ≥ %.1f× the faster peer | %s | %s |\n", c.name, c.min, ratio(x), verdict(x >= c.min, !math.IsNaN(x)))
		if strings.HasPrefix(c.name, "stdio") {
			g := t.ratioMedian(c.name, "go-sdk", rounds, p99, false)
			m := t.ratioMedian(c.name, "mcp-go", rounds, p99, false)
			w("| first round: %s p99 no worse than either peer | %s of go-sdk's, %s of mcp-go's | %s |\n", c.name, ratio(g), ratio(m),
				verdict(g <= 1 && m <= 1, !math.IsNaN(g) && !math.IsNaN(m)))
		}
	}
	w("\n")
}
