package soak_test

// The resident-set bound, which tells growth across the run from a
// transient peak.

import (
	"fmt"
	"slices"
	"time"
)

// The resident set must not grow across the run. Growth is a trend, not
// a peak: the bound compares the resident set's median over the last
// quarter of the traffic with its median over the second quarter. The
// first quarter is left out: it holds the ramp from the idle server to
// full traffic (a live heap twice as large with GOGC=100, and under
// -race the detector's shadow memory for every heap address used). A
// median ignores a transient peak (a burst, or heap the runtime has not
// yet returned to the system) unless it lasts half a quarter, while
// growth that goes on through the run raises the last quarter's median
// above the second's.
const (
	// The last quarter's median may exceed the second quarter's by
	// rssSlackPercent of it plus rssSlackKiB.
	rssSlackPercent = 25
	rssSlackKiB     = 32 << 10
)

// rssVerdict is the outcome of the resident-set bound for one run.
type rssVerdict struct {
	second, last int64 // median resident set of the second and last quarters, KiB
	bound        int64 // the most the last may be, KiB
	n2, n4       int   // samples in each quarter
}

// grew reports whether the run broke the bound; a run too short to have
// a sample in both quarters cannot.
func (v rssVerdict) grew() bool { return v.n2 > 0 && v.n4 > 0 && v.last > v.bound }

func (v rssVerdict) String() string {
	return fmt.Sprintf("median resident set %d KiB in the second quarter (%d samples), %d KiB in the last (%d samples), bound %d KiB",
		v.second, v.n2, v.last, v.n4, v.bound)
}

// judgeRSS applies the bound to the samples of a run whose traffic
// lasted traffic.
func judgeRSS(samples []memSample, traffic time.Duration) rssVerdict {
	var v rssVerdict
	v.second, v.n2 = medianKiB(samples, traffic/4, traffic/2)
	v.last, v.n4 = medianKiB(samples, traffic*3/4, traffic)
	v.bound = v.second + v.second*rssSlackPercent/100 + rssSlackKiB
	return v
}

// medianKiB is the median resident set sampled in [from, to) of the run,
// and how many samples that is.
func medianKiB(samples []memSample, from, to time.Duration) (int64, int) {
	var in []int64
	for _, s := range samples {
		if s.at >= from && s.at < to && s.rssKiB > 0 {
			in = append(in, s.rssKiB)
		}
	}
	if len(in) == 0 {
		return 0, 0
	}
	slices.Sort(in)
	return in[len(in)/2], len(in)
}

// peakKiB is the largest resident set sampled in [from, to) of the run
// (reported, not bounded).
func peakKiB(samples []memSample, from, to time.Duration) int64 {
	var peak int64
	for _, s := range samples {
		if s.at >= from && s.at < to && s.rssKiB > peak {
			peak = s.rssKiB
		}
	}
	return peak
}
