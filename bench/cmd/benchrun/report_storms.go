package main

// The cancellation storms and the idle listen streams, on stdio and on
// Streamable HTTP, each HTTP figure also against the same server's on
// stdio (the plain case it extends).

import (
	"fmt"
	"math"

	"github.com/snodo-go/snodo/bench/load"
)

// acrossMedian is the median over rounds of f(server in scenario) ÷
// f(other in plain), both measured in the same round; a round where
// either figure is NaN (not measured: a storm that never stopped) or the
// divisor is not positive is left out.
func (t table) acrossMedian(scenario, server, plain, other string, rounds int, f func(load.Result) float64) float64 {
	var xs []float64
	for round := 1; round <= rounds; round++ {
		v, ok := t.inRound(scenario, server, round)
		p, okp := t.inRound(plain, other, round)
		if ok && okp && f(p) > 0 && !math.IsNaN(f(v)) {
			xs = append(xs, f(v)/f(p))
		}
	}
	return median(xs)
}

// renderStorms writes one table per cancellation storm, and for the HTTP
// storm the ratios to the stdio storm.
func renderStorms(w func(string, ...any), t table, scenarios []load.Scenario, rounds int) {
	for _, sc := range scenarios {
		if sc.Kind != "storm" && sc.Kind != "httpstorm" {
			continue
		}
		name := sc.Name()
		if sc.Kind == "storm" {
			w("### Cancellation storm: %d `sleep` calls (60 s each) cancelled in one write, stdio\n\n", sc.Param)
		} else {
			w("### Cancellation storm over Streamable HTTP: %d `sleep` calls (60 s each), each a POST on its own connection, cancelled by disconnecting\n\n", sc.Param)
			w("The driver shuts the sending side of every connection, back to back (the server reads the end of the connection, as after a close), and keeps reading: a late response is a JSON-RPC message or an HTTP error that still arrives for a cancelled call; the empty 200 net/http completes for a handler that wrote nothing is not one. The time until none runs counts from the first disconnect; in brackets, how long the driver took to make all of them.\n\n")
		}
		w("| server | handlers running at the cancel | all stopped (rounds) | time until none runs, ms | late responses | calls started after their cancel | heap per sleeping call, KiB | goroutine stacks per sleeping call, KiB | peak RSS MiB |\n")
		w("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, srv := range servers {
			rs := t.get(name, srv.name)
			if st := statusFor(srv.name, rs); st != "" {
				w("| %s | %s | | | | | | | |\n", srv.name, st)
				continue
			}
			stopped := 0
			var stopMs []float64
			for _, r := range rs {
				if r.Stopped {
					stopped++
					stopMs = append(stopMs, r.StopMs)
				}
			}
			started, _ := med(rs, func(r load.Result) float64 { return float64(r.Started) })
			late, _ := med(rs, func(r load.Result) float64 { return float64(r.Late) })
			after, _ := med(rs, func(r load.Result) float64 { return float64(r.StartedAfterCancel) })
			heap, _ := med(rs, func(r load.Result) float64 { return r.HeapPerSleepB / 1024 })
			stack, _ := med(rs, func(r load.Result) float64 { return r.StackPerSleepB / 1024 })
			rss, _ := med(rs, func(r load.Result) float64 { return float64(r.PeakRSSKiB) / 1024 })
			stop := num(median(stopMs), 1)
			if stopped == 0 {
				stop = "not within 10 s"
			}
			if sc.Kind == "httpstorm" {
				send, _ := med(rs, func(r load.Result) float64 { return r.SendMs })
				stop += fmt.Sprintf(" (disconnects: %s)", num(send, 1))
			}
			w("| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s |\n", srv.name, num(started, 0), stopped, len(rs), stop, num(late, 0), num(after, 0), num(heap, 1), num(stack, 1), num(rss, 1))
		}
		w("\n")
		if sc.Kind == "httpstorm" {
			plain := sc.Plain().Name()
			w("Against the same server's stdio storm (`%s`) in the same round, median of those ratios:\n\n", plain)
			w("| server | time until none runs ÷ stdio | heap per sleeping call ÷ stdio | stacks per sleeping call ÷ stdio |\n|---|---:|---:|---:|\n")
			stopf := func(r load.Result) float64 {
				if !r.Stopped {
					return math.NaN()
				}
				return r.StopMs
			}
			for _, srv := range servers {
				if isFloor(srv.name) {
					continue
				}
				w("| %s | %s | %s | %s |\n", srv.name,
					ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, stopf)),
					ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, func(r load.Result) float64 { return r.HeapPerSleepB })),
					ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, func(r load.Result) float64 { return r.StackPerSleepB })))
			}
			w("\n")
		}
	}
}

// renderListens writes the idle listen streams of both transports in one
// table, and the HTTP streams' ratios to the stdio ones.
func renderListens(w func(string, ...any), t table, scenarios []load.Scenario, rounds int) {
	var listens []load.Scenario
	for _, sc := range scenarios {
		if sc.Kind == "listen" || sc.Kind == "httplisten" {
			listens = append(listens, sc)
		}
	}
	if len(listens) == 0 {
		return
	}
	w("### Idle `subscriptions/listen` streams, stdio and Streamable HTTP\n\n")
	w("On stdio every stream shares the one connection; over HTTP each stream is a POST on its own connection, so its figures include what the HTTP server holds per connection. ")
	w("\"streams open\" is how many were measured (fewer than the case names only where the open-file limit could not hold them).\n\n")
	w("| case | server | streams open | live heap per stream, KiB | goroutine stacks per stream, KiB | RSS per stream, KiB | goroutines per stream | peak RSS MiB |\n")
	w("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, sc := range listens {
		name := sc.Name()
		for _, srv := range servers {
			rs := t.get(name, srv.name)
			if st := statusFor(srv.name, rs); st != "" {
				w("| %s | %s | %s | | | | | |\n", name, srv.name, st)
				continue
			}
			open, _ := med(rs, func(r load.Result) float64 { return float64(r.Streams) })
			heap, _ := med(rs, func(r load.Result) float64 { return r.HeapPerStreamB / 1024 })
			stack, _ := med(rs, func(r load.Result) float64 { return r.StackPerStreamB / 1024 })
			rss, _ := med(rs, func(r load.Result) float64 { return r.RSSPerStreamB / 1024 })
			g, _ := med(rs, func(r load.Result) float64 { return r.GoroutinesPerSt })
			peak, _ := med(rs, func(r load.Result) float64 { return float64(r.PeakRSSKiB) / 1024 })
			w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, srv.name, num(open, 0), num(heap, 2), num(stack, 2), num(rss, 2), num(g, 2), num(peak, 1))
		}
	}
	w("\n")
	for _, sc := range listens {
		if sc.Kind != "httplisten" {
			continue
		}
		name, plain := sc.Name(), sc.Plain().Name()
		w("`%s` against the same server's `%s` in the same round, median of those ratios:\n\n", name, plain)
		w("| server | heap per stream ÷ stdio | RSS per stream ÷ stdio |\n|---|---:|---:|\n")
		for _, srv := range servers {
			if isFloor(srv.name) {
				continue
			}
			w("| %s | %s | %s |\n", srv.name,
				ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, func(r load.Result) float64 { return r.HeapPerStreamB })),
				ratio(t.acrossMedian(name, srv.name, plain, srv.name, rounds, func(r load.Result) float64 { return r.RSSPerStreamB })))
		}
		w("\n")
	}
}
