package main

// Progress: which round, scenario and server a run is measuring, and
// about how long is left, on stderr.

import (
	"fmt"
	"io"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// progress reports a run's progress before each measurement. The time
// left is estimated per scenario: from the measurements of it already
// taken, else from its load window, else from the mean of all
// measurements so far.
type progress struct {
	w         io.Writer
	now       func() time.Time
	scenarios []load.Scenario
	rounds    int
	total     int                      // measurements planned
	done      int                      // measurements taken
	left      map[string]int           // measurements still to take, by scenario
	took      map[string]time.Duration // time spent measuring, by scenario
	taken     map[string]int           // measurements taken, by scenario
	began     time.Time                // the current measurement's start
}

// setupOverhead is what a load measurement costs beyond its window:
// starting the server, connecting, draining.
const setupOverhead = 2 * time.Second

// newProgress plans the measurements: serving says how many servers
// serve a scenario kind (the others are not measured in it).
func newProgress(w io.Writer, scenarios []load.Scenario, rounds int, serving func(kind string) int) *progress {
	p := &progress{w: w, now: time.Now, scenarios: scenarios, rounds: rounds,
		left: map[string]int{}, took: map[string]time.Duration{}, taken: map[string]int{}}
	for _, sc := range scenarios {
		servers := serving(sc.Kind)
		n := servers * rounds
		if sc.Once {
			n = servers
		}
		p.left[sc.Name()] += n
		p.total += n
	}
	return p
}

// begin reports the measurement about to start.
func (p *progress) begin(round int, sc load.Scenario, server string) {
	p.began = p.now()
	index := 0
	for i, s := range p.scenarios {
		if s.Name() == sc.Name() {
			index = i + 1
		}
	}
	eta := "time left not known yet"
	if d, ok := p.estimate(); ok {
		eta = "about " + d.Round(time.Second).String() + " left"
	}
	fmt.Fprintf(p.w, "[round %d/%d, scenario %d/%d] %s on %s: measurement %d of %d, %s\n",
		round, p.rounds, index, len(p.scenarios), sc.Name(), server, p.done+1, p.total, eta)
}

// end records the measurement that began last.
func (p *progress) end(sc load.Scenario) {
	name := sc.Name()
	p.took[name] += p.now().Sub(p.began)
	p.taken[name]++
	p.left[name]--
	p.done++
}

// estimate is the time the measurements not yet taken should need; false
// when nothing is known to estimate it from.
func (p *progress) estimate() (time.Duration, bool) {
	var all time.Duration
	for _, d := range p.took {
		all += d
	}
	var sum time.Duration
	for _, sc := range p.scenarios {
		name := sc.Name()
		n := p.left[name]
		switch {
		case n <= 0:
		case p.taken[name] > 0:
			sum += time.Duration(n) * (p.took[name] / time.Duration(p.taken[name]))
		case sc.Duration > 0:
			sum += time.Duration(n) * (sc.Warmup + sc.Duration + setupOverhead)
		case p.done > 0:
			sum += time.Duration(n) * (all / time.Duration(p.done))
		default:
			return 0, false
		}
	}
	return sum, true
}
