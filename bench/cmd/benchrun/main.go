// Command benchrun builds the benchmark servers (snodo-go, the two peers
// and the stdio and HTTP floors), runs every scenario against each of them
// in alternation for several rounds, and writes the medians, the
// snodo-to-peer ratios and every server's ratios to the floor into docs/PERFORMANCE.md (between
// its results markers), the raw results next to it as JSON, and SVG plots
// of them beside it (perf-*.svg). While it runs it says on stderr which
// round and scenario it is measuring and about how long is left.
//
// Run it from the bench directory (bench/run.sh does):
//
//	go run ./cmd/benchrun            # full run, about 15 minutes
//	go run ./cmd/benchrun -quick     # one short round, about 2 to 3 minutes
//	go run ./cmd/benchrun -from ../docs/performance-results.json -run "..."
//	                                 # only redraw the plots of saved results
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// servers are the measured implementations; snodo comes first so every
// ratio is snodo / peer. The two floors come last: each serves one kind
// of load scenario (kinds; nil: every kind) and is the denominator of the
// floor ratios.
var servers = []struct {
	name, pkg string
	kinds     []string
}{
	{"snodo", "./cmd/server-snodo", nil},
	{"go-sdk", "./cmd/server-gosdk", nil},
	{"mcp-go", "./cmd/server-mcpgo", nil},
	{floorStdio, "./cmd/server-floor-stdio", []string{"stdio"}},
	{floorHTTP, "./cmd/server-floor-http", []string{"http"}},
}

// The floor servers' names; floorFor gives the one for a scenario kind.
const (
	floorStdio = "floor-stdio"
	floorHTTP  = "floor-http"
)

// floorFor is the floor server of a load scenario kind ("" for others).
func floorFor(kind string) string {
	switch kind {
	case "stdio":
		return floorStdio
	case "http":
		return floorHTTP
	}
	return ""
}

// isFloor reports whether server is one of the floors.
func isFloor(server string) bool { return server == floorStdio || server == floorHTTP }

// Record is one result with the round it was measured in.
type Record struct {
	Round int `json:"round"`
	load.Result
}

func main() {
	quick := flag.Bool("quick", false, "one short round (about 2 to 3 minutes)")
	rounds := flag.Int("rounds", 5, "rounds (ignored with -quick)")
	out := flag.String("out", "../docs/PERFORMANCE.md", "report to update between its results markers")
	raw := flag.String("json", "../docs/performance-results.json", "where to write the raw results")
	only := flag.String("only", "", "run only scenarios of this kind (stdio, http, variant, task, storm, httpstorm, listen, httplisten, bigline), with the plain case each extends")
	plotDir := flag.String("plots", "", "where to write the SVG plots (default: the directory of -out)")
	from := flag.String("from", "", "run nothing: draw the plots of this results file (as -json writes it) and stop")
	runLabel := flag.String("run", "", "with -from: which run the results come from, as the plots should say (default: the file's name)")
	flag.Parse()
	if *plotDir == "" {
		*plotDir = filepath.Dir(*out)
	}
	if *from != "" {
		if err := redraw(*from, *plotDir, *runLabel); err != nil {
			fatal(err)
		}
		return
	}

	scenarios := fullScenarios()
	if *quick {
		*rounds = 1
		scenarios = quickScenarios()
	}
	if *only != "" {
		var keep []load.Scenario
		for _, s := range scenarios {
			if s.Kind == *only {
				// A variant's, a task's or an HTTP storm's or listen's
				// ratios need the plain case in the same run.
				if p := s.Plain(); p != s && !slices.Contains(keep, p) {
					keep = append(keep, p)
				}
				keep = append(keep, s)
			}
		}
		scenarios = keep
	}
	bin, err := os.MkdirTemp("", "benchrun-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(bin)
	var specs []load.ServerSpec
	for _, s := range servers {
		path := filepath.Join(bin, "server-"+s.name)
		cmd := exec.Command("go", "build", "-o", path, s.pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fatal(fmt.Errorf("building %s: %w", s.name, err))
		}
		specs = append(specs, load.ServerSpec{Name: s.name, Path: path, Kinds: s.kinds})
	}

	ctx := context.Background()
	measured := commit() // what the servers were built from, before anything else changes
	started, loadBefore := time.Now(), loadAverage()
	var records []Record
	prog := newProgress(os.Stderr, scenarios, *rounds, func(kind string) int {
		n := 0
		for _, s := range specs {
			if (load.Scenario{Kind: kind}).Supports(s) {
				n++
			}
		}
		return n
	})
	for round := range *rounds {
		for _, sc := range scenarios {
			if sc.Once && round > 0 {
				continue
			}
			// Alternate who goes first, so no server always meets the
			// machine in the same state.
			for i := range specs {
				spec := specs[(i+round)%len(specs)]
				records = append(records, measure(ctx, prog, round+1, sc, spec))
			}
		}
	}
	elapsed := time.Since(started)

	b, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*raw, append(b, '\n'), 0o644); err != nil {
		fatal(err)
	}
	info := runInfo{
		Rounds: *rounds, Quick: *quick, Elapsed: elapsed, Date: time.Now().UTC(), Commit: measured,
		LoadBefore: loadBefore, LoadAfter: loadAverage(),
	}
	info.Plots, err = writePlots(*plotDir, records, plotNote(records, fmt.Sprintf("run of %s, commit %s", info.Date.Format("2006-01-02 15:04 UTC"), measured)))
	if err != nil {
		fatal(err)
	}
	report := render(records, scenarios, info)
	if err := replaceResults(*out, report); err != nil {
		fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s, %s and %d plots in %s in %s\n", *out, *raw, len(info.Plots), *plotDir, elapsed.Round(time.Second))
}

// measure runs sc against spec in round and reports it on prog's writer.
// A server that does not serve sc's kind (a floor outside its transport)
// is recorded as unsupported, not measured: the progress and its time
// estimate count only real measurements.
func measure(ctx context.Context, prog *progress, round int, sc load.Scenario, spec load.ServerSpec) Record {
	if !sc.Supports(spec) {
		return Record{Round: round, Result: load.Result{Server: spec.Name, Scenario: sc.Name(), Param: sc.Param, Unsupported: true}}
	}
	prog.begin(round, sc, spec.Name)
	r := sc.Run(ctx, spec)
	prog.end(sc)
	r.Scenario = sc.Name()
	fmt.Fprintf(prog.w, "round %d  %-14s %-11s %s\n", round, sc.Name(), spec.Name, summary(r))
	return Record{Round: round, Result: r}
}

// redraw draws the plots of a saved results file; run says which run it
// holds ("" names the file).
func redraw(path, dir, run string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var recs []Record
	if err := json.Unmarshal(b, &recs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if run == "" {
		run = "results of " + filepath.Base(path)
	}
	files, err := writePlots(dir, recs, plotNote(recs, run))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s in %s\n", strings.Join(files, ", "), dir)
	return nil
}

func fullScenarios() []load.Scenario {
	w, d := 500*time.Millisecond, 3*time.Second
	return []load.Scenario{
		{Kind: "stdio", Param: 1, Warmup: w, Duration: d},
		{Kind: "stdio", Param: 16, Warmup: w, Duration: d},
		{Kind: "stdio", Param: 256, Warmup: w, Duration: d},
		{Kind: "http", Param: 1, Warmup: w, Duration: d},
		{Kind: "http", Param: 16, Warmup: w, Duration: d},
		{Kind: "http", Param: 64, Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "actor", Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "limited", Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "proxy", Warmup: w, Duration: d},
		{Kind: "task", Param: 16, Variant: "memory", Warmup: w, Duration: d},
		{Kind: "task", Param: 16, Variant: "bolt", Warmup: w, Duration: d},
		{Kind: "storm", Param: 1000},
		{Kind: "httpstorm", Param: 1000},
		{Kind: "listen", Param: 1000},
		{Kind: "listen", Param: 10000},
		{Kind: "httplisten", Param: 10000},
		{Kind: "bigline", Param: 1024, Once: true},
	}
}

func quickScenarios() []load.Scenario {
	w, d := 200*time.Millisecond, time.Second
	return []load.Scenario{
		{Kind: "stdio", Param: 1, Warmup: w, Duration: d},
		{Kind: "stdio", Param: 16, Warmup: w, Duration: d},
		{Kind: "stdio", Param: 256, Warmup: w, Duration: d},
		{Kind: "http", Param: 16, Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "actor", Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "limited", Warmup: w, Duration: d},
		{Kind: "variant", Param: 16, Variant: "proxy", Warmup: w, Duration: d},
		{Kind: "task", Param: 16, Variant: "memory", Warmup: w, Duration: d},
		{Kind: "task", Param: 16, Variant: "bolt", Warmup: w, Duration: d},
		{Kind: "storm", Param: 1000},
		{Kind: "httpstorm", Param: 1000},
		{Kind: "listen", Param: 1000},
		{Kind: "httplisten", Param: 1000},
		{Kind: "bigline", Param: 256, Once: true},
	}
}

func summary(r load.Result) string {
	switch {
	case r.Unsupported:
		return "unsupported"
	case r.Err != "":
		return "error: " + r.Err
	case r.Throughput > 0:
		line := fmt.Sprintf("%.0f req/s  p50 %.0f µs  p99 %.0f µs  cpu %.0f µs/req  rss %d KiB", r.Throughput, r.P50us, r.P99us, r.CPUPerReq, r.PeakRSSKiB)
		if r.GetsPerTask > 0 {
			line += fmt.Sprintf("  tasks/get per task %.1f", r.GetsPerTask)
		}
		if r.MaxGapUs > 0 {
			line += fmt.Sprintf("  gap %.0f ms  lag %.0f ms", r.MaxGapUs/1000, r.DriverLagUs/1000)
		}
		return line
	case r.Started > 0:
		return fmt.Sprintf("started %d  stopped %t in %.1f ms  late %d  started after cancel %d  heap/sleep %.0f B", r.Started, r.Stopped, r.StopMs, r.Late, r.StartedAfterCancel, r.HeapPerSleepB)
	case strings.HasPrefix(r.Scenario, "bigline"):
		return fmt.Sprintf("refused %t  next answered %t  peak rss %d KiB", r.OversizeRefused, r.NextAnswered, r.PeakRSSKiB)
	case r.Streams > 0:
		return fmt.Sprintf("streams %d of %d  heap/stream %.0f B  rss/stream %.0f B", r.Streams, r.Param, r.HeapPerStreamB, r.RSSPerStreamB)
	}
	return "no data"
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}
