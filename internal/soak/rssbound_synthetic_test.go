package soak_test

// The resident-set bound on synthetic runs: growth across the run fails
// it; a transient peak, the warm-up's ramp and a one-time fill do not.

import (
	"math"
	"testing"
	"time"
)

// synthetic is a run of traffic seconds sampled once a second, the
// resident set at second i being kib(i).
func synthetic(traffic int, kib func(i int) float64) []memSample {
	out := make([]memSample, traffic)
	for i := range out {
		out[i] = memSample{at: time.Duration(i) * time.Second, rssKiB: int64(kib(i))}
	}
	return out
}

func TestRSSBound(t *testing.T) {
	const run = 1800 // seconds: a 30-minute soak
	const mib = 1024.0
	// wobble is the noise of a steady server: ±3 MiB.
	wobble := func(i int) float64 { return 3 * mib * math.Sin(float64(i)/7) }
	// ramp is the warm-up: from 80 MiB to 200 MiB over the first 200 s.
	ramp := func(i int) float64 { return 80*mib + 120*mib*min(float64(i)/200, 1) }
	cases := []struct {
		name string
		kib  func(i int) float64
		grew bool
	}{
		{"steady", func(i int) float64 { return 200*mib + wobble(i) }, false},
		{"warm-up ramp, then steady", func(i int) float64 { return ramp(i) + wobble(i) }, false},
		{"transient peak in the last quarter: +100 MiB for 90 s", func(i int) float64 {
			if i >= 1500 && i < 1590 {
				return 300*mib + wobble(i)
			}
			return ramp(i) + wobble(i)
		}, false},
		{"peak that decays slowly (the scavenger): +100 MiB, halving every minute", func(i int) float64 {
			if i < 1400 {
				return ramp(i) + wobble(i)
			}
			return ramp(i) + 100*mib*math.Pow(0.5, float64(i-1400)/60) + wobble(i)
		}, false},
		{"a one-time fill of 30 MiB spread over the run", func(i int) float64 {
			return ramp(i) + 30*mib*(1-math.Exp(-float64(i)/400)) + wobble(i)
		}, false},
		{"linear growth: 150 MiB to 400 MiB", func(i int) float64 { return 150*mib + 250*mib*float64(i)/run + wobble(i) }, true},
		{"growth after the warm-up: +10 MiB a minute", func(i int) float64 { return ramp(i) + 10*mib*float64(i)/60 + wobble(i) }, true},
		{"a step that stays: +120 MiB from the middle of the run", func(i int) float64 {
			if i >= run/2 {
				return ramp(i) + 120*mib + wobble(i)
			}
			return ramp(i) + wobble(i)
		}, true},
	}
	for _, c := range cases {
		v := judgeRSS(synthetic(run, c.kib), run*time.Second)
		if v.grew() != c.grew {
			t.Errorf("%s: grew=%v, want %v (%s)", c.name, v.grew(), c.grew, v)
		}
	}
	// A run too short to have a sample in the second quarter is not judged.
	if v := judgeRSS(synthetic(1, func(int) float64 { return 1 }), 1*time.Second); v.grew() || v.n2 != 0 {
		t.Errorf("a one-sample run was judged: %s", v)
	}
}
