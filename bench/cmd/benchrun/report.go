package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// Markers delimit the generated part of docs/PERFORMANCE.md; everything
// outside them is written by hand and kept.
const (
	beginMarker = "<!-- BEGIN GENERATED RESULTS (bench/cmd/benchrun) -->"
	endMarker   = "<!-- END GENERATED RESULTS -->"
)

type runInfo struct {
	Rounds  int
	Quick   bool
	Elapsed time.Duration
	Date    time.Time
	Commit  string
	// LoadBefore and LoadAfter are the machine's one-minute load average
	// (/proc/loadavg) as the run started and as it ended; empty where it
	// could not be read.
	LoadBefore, LoadAfter string
	// Plots are the SVG files drawn from the run, beside the report.
	Plots []string
}

func replaceResults(path, generated string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no results markers", path)
	}
	s = s[:i+len(beginMarker)] + "\n" + generated + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

// table holds the records by scenario and server.
type table struct {
	recs []Record
}

func (t table) get(scenario, server string) []load.Result {
	var out []load.Result
	for _, r := range t.recs {
		if r.Scenario == scenario && r.Server == server {
			out = append(out, r.Result)
		}
	}
	return out
}

func (t table) inRound(scenario, server string, round int) (load.Result, bool) {
	for _, r := range t.recs {
		if r.Scenario == scenario && r.Server == server && r.Round == round {
			return r.Result, good(r.Result)
		}
	}
	return load.Result{}, false
}

// failed reports a measurement that went wrong: the run returned an
// error, or any response in it was a JSON-RPC error (or an isError
// result). Its figures are left out of every median and ratio.
func failed(r load.Result) bool { return r.Err != "" || r.Errors > 0 }

// good reports a measurement whose figures count.
func good(r load.Result) bool { return !r.Unsupported && !failed(r) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// med returns the median of f over the successful results, and how many
// there were.
func med(rs []load.Result, f func(load.Result) float64) (float64, int) {
	var xs []float64
	for _, r := range rs {
		if good(r) {
			xs = append(xs, f(r))
		}
	}
	return median(xs), len(xs)
}

func status(rs []load.Result) string {
	if len(rs) == 0 {
		return "not run"
	}
	unsup, errs := 0, 0
	for _, r := range rs {
		switch {
		case r.Unsupported:
			unsup++
		case failed(r):
			errs++
		}
	}
	switch {
	case unsup == len(rs):
		return "not supported yet"
	case errs == len(rs):
		return "failed"
	}
	return ""
}

// statusFor is status as server's row says it: a floor outside the one
// kind of scenario it serves is "n/a", not a feature still to come.
func statusFor(server string, rs []load.Result) string {
	st := status(rs)
	if st == "not supported yet" && isFloor(server) {
		return "n/a"
	}
	return st
}

func num(x float64, prec int) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, x)
}

func ratio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", x)
}

// ratioMedian is the median over rounds of f(snodo)/f(peer) measured in
// the same round; peer "faster" takes the better of the two peers that
// round (higher when higherBetter, else lower).
func (t table) ratioMedian(scenario, peer string, rounds int, f func(load.Result) float64, higherBetter bool) float64 {
	return t.ratioMedianOf(scenario, "snodo", peer, rounds, f, higherBetter)
}

// ratioMedianOf is ratioMedian with server in snodo's place.
func (t table) ratioMedianOf(scenario, server, peer string, rounds int, f func(load.Result) float64, higherBetter bool) float64 {
	var xs []float64
	for round := 1; round <= rounds; round++ {
		s, ok := t.inRound(scenario, server, round)
		if !ok {
			continue
		}
		var p float64
		if peer == "faster" {
			g, okg := t.inRound(scenario, "go-sdk", round)
			m, okm := t.inRound(scenario, "mcp-go", round)
			switch {
			case okg && okm && higherBetter:
				p = math.Max(f(g), f(m))
			case okg && okm:
				p = math.Min(f(g), f(m))
			case okg:
				p = f(g)
			case okm:
				p = f(m)
			default:
				continue
			}
		} else {
			r, ok := t.inRound(scenario, peer, round)
			if !ok {
				continue
			}
			p = f(r)
		}
		if p > 0 {
			xs = append(xs, f(s)/p)
		}
	}
	return median(xs)
}

func render(recs []Record, scenarios []load.Scenario, info runInfo) string {
	t := table{recs: recs}
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	mode := "full"
	if info.Quick {
		mode = "quick (-quick: one round, 1 s windows; indicative only)"
	}
	w("\n_Last run: %s, %s, %d round(s), %s; %s; %d CPUs (%s); commit %s; %s._\n\n",
		info.Date.Format("2006-01-02 15:04 UTC"), mode, info.Rounds, info.Elapsed.Round(time.Second),
		runtime.Version(), runtime.NumCPU(), cpuModel(), info.Commit, describeLoad(info.LoadBefore, info.LoadAfter))
	w("Medians over rounds. Ratios are snodo-go ÷ peer computed within each round, then the median of those; ")
	w("for throughput higher is better for snodo-go, for latency, CPU and memory lower is better. ")
	w("Ratios to the floor (%s for stdio, %s for HTTP: decode, echo, encode, nothing else) are computed the same way for every server: ", floorStdio, floorHTTP)
	w("req/s ÷ floor is the share of the floor's throughput a server reaches (at most about 1), CPU/req ÷ floor how many times the floor's CPU per request it spends (at least about 1). ")
	w("A measurement in which any response was a JSON-RPC error (or a tool result with isError) has failed: ")
	w("its figures are left out, and it is listed under \"Failed measurements\".\n\n")
	b.WriteString(renderPlots(info.Plots))

	// Load scenarios.
	for _, kind := range []string{"stdio", "http"} {
		var names []string
		for _, sc := range scenarios {
			if sc.Kind == kind {
				names = append(names, sc.Name())
			}
		}
		if len(names) == 0 {
			continue
		}
		if kind == "stdio" {
			w("### stdio: `tools/call echo`, C requests pipelined\n\n")
		} else {
			w("### Streamable HTTP: `tools/call echo`, K keep-alive clients\n\n")
		}
		w("| case | server | req/s | p50 µs | p99 µs | server CPU µs/req | peak RSS MiB | rounds ok |\n")
		w("|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, name := range names {
			for _, srv := range servers {
				rs := t.get(name, srv.name)
				if st := statusFor(srv.name, rs); st != "" {
					w("| %s | %s | %s | | | | | 0/%d |\n", name, srv.name, st, len(rs))
					continue
				}
				thr, n := med(rs, func(r load.Result) float64 { return r.Throughput })
				p50, _ := med(rs, func(r load.Result) float64 { return r.P50us })
				p99, _ := med(rs, func(r load.Result) float64 { return r.P99us })
				cpu, _ := med(rs, func(r load.Result) float64 { return r.CPUPerReq })
				rss, _ := med(rs, func(r load.Result) float64 { return float64(r.PeakRSSKiB) / 1024 })
				w("| %s | %s | %s | %s | %s | %s | %s | %d/%d |\n", name, srv.name, num(thr, 0), num(p50, 0), num(p99, 0), num(cpu, 1), num(rss, 1), n, len(rs))
			}
		}
		w("\n| case | req/s ÷ go-sdk | req/s ÷ mcp-go | req/s ÷ faster peer | p99 ÷ go-sdk | p99 ÷ mcp-go | CPU/req ÷ go-sdk | CPU/req ÷ mcp-go |\n")
		w("|---|---:|---:|---:|---:|---:|---:|---:|\n")
		thr := func(r load.Result) float64 { return r.Throughput }
		p99 := func(r load.Result) float64 { return r.P99us }
		cpu := func(r load.Result) float64 { return r.CPUPerReq }
		for _, name := range names {
			w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
				ratio(t.ratioMedian(name, "go-sdk", info.Rounds, thr, true)),
				ratio(t.ratioMedian(name, "mcp-go", info.Rounds, thr, true)),
				ratio(t.ratioMedian(name, "faster", info.Rounds, thr, true)),
				ratio(t.ratioMedian(name, "go-sdk", info.Rounds, p99, false)),
				ratio(t.ratioMedian(name, "mcp-go", info.Rounds, p99, false)),
				ratio(t.ratioMedian(name, "go-sdk", info.Rounds, cpu, false)),
				ratio(t.ratioMedian(name, "mcp-go", info.Rounds, cpu, false)))
		}
		fl := floorFor(kind)
		w("\n| case | server | req/s ÷ %s | CPU/req ÷ %s |\n|---|---|---:|---:|\n", fl, fl)
		for _, name := range names {
			for _, srv := range servers {
				if isFloor(srv.name) {
					continue
				}
				w("| %s | %s | %s | %s |\n", name, srv.name,
					ratio(t.ratioMedianOf(name, srv.name, fl, info.Rounds, thr, true)),
					ratio(t.ratioMedianOf(name, srv.name, fl, info.Rounds, cpu, false)))
			}
		}
		w("\n")
	}

	renderVariants(w, t, scenarios, info.Rounds)
	renderTasks(w, t, scenarios, info.Rounds)

	renderStorms(w, t, scenarios, info.Rounds)
	renderListens(w, t, scenarios, info.Rounds)

	// Oversized line.
	for _, sc := range scenarios {
		if sc.Kind != "bigline" {
			continue
		}
		name := sc.Name()
		w("### One %d MiB line on stdin, then an ordinary request\n\n", sc.Param)
		w("| server | big line answered with an error | next request answered | connection ended by the server | still no answer after 30 s | peak RSS MiB (median) |\n|---|---:|---:|---:|---:|---:|\n")
		for _, srv := range servers {
			rs := t.get(name, srv.name)
			if len(rs) == 0 {
				continue
			}
			if st := statusFor(srv.name, rs); st == "n/a" || st == "not supported yet" {
				w("| %s | %s | | | | |\n", srv.name, st)
				continue
			}
			refused, answered, ended, none := 0, 0, 0, 0
			var peak []float64
			for _, r := range rs {
				if r.OversizeRefused {
					refused++
				}
				if r.NextAnswered {
					answered++
				}
				if r.ConnectionEnded {
					ended++
				}
				if r.NoAnswer {
					none++
				}
				if r.PeakRSSKiB > 0 { // zero: the process had already exited
					peak = append(peak, float64(r.PeakRSSKiB)/1024)
				}
			}
			p := num(median(peak), 1)
			if len(peak) == 0 {
				p = "– (exited)"
			}
			w("| %s | %d/%d | %d/%d | %d/%d | %d/%d | %s |\n", srv.name, refused, len(rs), answered, len(rs), ended, len(rs), none, len(rs), p)
		}
		w("\n")
	}

	renderTargets(w, t, info.Rounds)

	// Failures, verbatim.
	var failures []string
	for _, r := range recs {
		switch {
		case r.Err != "":
			failures = append(failures, fmt.Sprintf("- round %d, %s, %s: %s", r.Round, r.Scenario, r.Server, oneLine(r.Err)))
		case r.Errors > 0:
			failures = append(failures, fmt.Sprintf("- round %d, %s, %s: %d responses were JSON-RPC errors or isError results", r.Round, r.Scenario, r.Server, r.Errors))
		}
	}
	if len(failures) > 0 {
		w("### Failed measurements\n\n%s\n\n", strings.Join(failures, "\n"))
	}

	// Stalls: a stdio window with a long stretch without any response.
	var stalls []string
	for _, r := range recs {
		if r.MaxGapUs >= stallGapUs {
			who := "the server (the driver ran on time)"
			if r.DriverLagUs >= r.MaxGapUs/2 {
				who = "the machine (the driver was paused too)"
			}
			stalls = append(stalls, fmt.Sprintf("- round %d, %s, %s: no response for %.0f ms; driver lag %.0f ms: %s", r.Round, r.Scenario, r.Server, r.MaxGapUs/1000, r.DriverLagUs/1000, who))
		}
	}
	if len(stalls) > 0 {
		w("### Stalls\n\n%s\n\n", strings.Join(stalls, "\n"))
	}
	return b.String()
}

// stallGapUs is the stretch without a response that counts as a stall.
const stallGapUs = 250_000

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// loadAverage is the machine's one-minute load average, or "" where
// /proc/loadavg cannot be read.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// describeLoad says under what load the run was measured: the machine's
// one-minute load average before it and at its end (which includes the
// run's own driver and server).
func describeLoad(before, after string) string {
	if before == "" || after == "" {
		return "load average not known"
	}
	return fmt.Sprintf("load average %s before the run, %s at its end (the run's own processes included)", before, after)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	// Uncommitted changes outside docs/ (which this run rewrites) make the
	// commit an incomplete description of what was measured.
	if st, err := exec.Command("git", "status", "--porcelain", "--", ".", "../dispatch", "../actors", "../transports", "../supervisor", "../go.mod").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " with uncommitted changes"
	}
	return c
}
