package main

// The plots: SVG charts of a run's results, written beside the report.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/snodo-go/snodo/bench/internal/svgplot"
	"github.com/snodo-go/snodo/bench/load"
)

// plotFiles are the charts in the order the report shows them, with the
// caption it gives each.
var plotFiles = []struct{ file, caption string }{
	{"perf-throughput.svg", "Requests per second"},
	{"perf-cpu.svg", "Server CPU per request"},
	{"perf-latency.svg", "Latency, p50 to p99"},
	{"perf-stream-memory.svg", "Memory per idle listen stream"},
}

// scenarioNames returns the names of the scenarios in recs made of one of
// prefixes and one more word (its parameter), in the order they were
// first measured: "stdio " takes "stdio C=16" but not the variant "stdio
// C=16 actor", "http " takes "http K=16" but not "http storm N=1000".
func scenarioNames(recs []Record, prefixes ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.Scenario] {
			continue
		}
		for _, p := range prefixes {
			// A variant ("stdio C=16 actor") is snodo-go's alone: it has
			// its own table, not a place in the servers' plots; the HTTP
			// storm has its table too.
			if rest, ok := strings.CutPrefix(r.Scenario, p); ok && len(strings.Fields(rest)) == 1 {
				seen[r.Scenario] = true
				out = append(out, r.Scenario)
			}
		}
	}
	return out
}

// medianSeries is one series per server: the median of f over its good
// results in each scenario, NaN where it has none. A floor with no value
// in any of the scenarios (a chart of scenarios it does not serve) has no
// series.
func medianSeries(t table, scenarios []string, f func(load.Result) float64) []svgplot.Series {
	var out []svgplot.Series
	for _, srv := range servers {
		s := svgplot.Series{Name: srv.name}
		some := false
		for _, sc := range scenarios {
			v, _ := med(t.get(sc, srv.name), f)
			s.Values = append(s.Values, v)
			some = some || !math.IsNaN(v)
		}
		if isFloor(srv.name) && !some {
			continue
		}
		out = append(out, s)
	}
	return out
}

// charts builds the plots of recs; note says which run they show.
func charts(recs []Record, note string) []*svgplot.Chart {
	t := table{recs: recs}
	loads := scenarioNames(recs, "stdio ", "http ")
	listen := scenarioNames(recs, "listen ", "http listen ")
	var out []*svgplot.Chart
	if len(loads) > 0 {
		out = append(out,
			&svgplot.Chart{Title: "Throughput: tools/call echo (higher is better)", YLabel: "requests per second",
				Categories: loads, Series: medianSeries(t, loads, func(r load.Result) float64 { return r.Throughput }), Note: note},
			&svgplot.Chart{Title: "Server CPU per request (lower is better)", YLabel: "CPU µs per request",
				Categories: loads, Series: medianSeries(t, loads, func(r load.Result) float64 { return r.CPUPerReq }), Note: note})
		lat := medianSeries(t, loads, func(r load.Result) float64 { return r.P99us })
		p50 := medianSeries(t, loads, func(r load.Result) float64 { return r.P50us })
		for i := range lat {
			lat[i].Low = p50[i].Values
		}
		out = append(out, &svgplot.Chart{Title: "Latency: each bar spans p50 to p99 (lower is better)", YLabel: "µs (log scale)",
			Categories: loads, Series: lat, LogY: true, Note: note})
	} else {
		out = append(out, nil, nil, nil)
	}
	if len(listen) > 0 {
		out = append(out, &svgplot.Chart{Title: "Memory per idle subscriptions/listen stream (lower is better)", YLabel: "KiB per stream (heap + goroutine stacks)",
			Categories: listen, Series: medianSeries(t, listen, func(r load.Result) float64 { return (r.HeapPerStreamB + r.StackPerStreamB) / 1024 }), Note: note})
	} else {
		out = append(out, nil)
	}
	return out
}

// writePlots draws the plots of recs into dir and returns the files it
// wrote (a chart whose scenarios were not run is not drawn).
func writePlots(dir string, recs []Record, note string) ([]string, error) {
	var written []string
	for i, c := range charts(recs, note) {
		if c == nil {
			continue
		}
		var b bytes.Buffer
		if err := c.Render(&b); err != nil {
			return written, err
		}
		path := filepath.Join(dir, plotFiles[i].file)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return written, err
		}
		written = append(written, plotFiles[i].file)
	}
	return written, nil
}

// renderPlots is the report's part that shows the plots written.
func renderPlots(files []string) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Plots\n\nDrawn by `benchrun` from this run's results (`docs/performance-results.json`): medians over the rounds, snodo-go against the two peers and the floors (each floor only in its own transport's cases).\n\n")
	for _, f := range files {
		for _, p := range plotFiles {
			if p.file == f {
				fmt.Fprintf(&b, "![%s](%s)\n\n", p.caption, f)
			}
		}
	}
	return b.String()
}

// roundsIn is the number of rounds recs span.
func roundsIn(recs []Record) int {
	n := 0
	for _, r := range recs {
		n = max(n, r.Round)
	}
	return n
}

// plotNote says which run the plots show.
func plotNote(recs []Record, run string) string {
	n := roundsIn(recs)
	return fmt.Sprintf("Median of %d round(s); %s. n/a: not supported or failed.", n, run)
}
