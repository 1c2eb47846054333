package soak_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// report collects what the traffic saw: counts by kind, and failures
// (kept to the first few, all counted).
type report struct {
	mu       sync.Mutex
	counts   map[string]int64
	failures []string
	failed   int
}

func newReport() *report { return &report{counts: map[string]int64{}} }

func (r *report) count(kind string) {
	r.mu.Lock()
	r.counts[kind]++
	r.mu.Unlock()
}

func (r *report) failf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed++
	if len(r.failures) < 20 {
		r.failures = append(r.failures, fmt.Sprintf(format, a...))
	}
}

func (r *report) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.counts))
	for k := range r.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d, ", k, r.counts[k])
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// frame is what the soak reads of a server frame.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code int64 `json:"code"`
	} `json:"error"`
	Params struct {
		ProgressToken json.RawMessage            `json:"progressToken"`
		RequestID     json.RawMessage            `json:"requestId"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// hasID reports whether the frame carries an id (responses to requests
// whose id could be read).
func (f *frame) hasID() bool { return len(f.ID) > 0 && string(f.ID) != "null" }

// rssSample is the process's resident set at one moment.
type rssSample struct {
	at  time.Duration // since the traffic started
	kib int64
}

// residentKiB reads VmRSS from /proc/self/status.
func residentKiB() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}

// peakKiB is the largest sample taken in [from, to) of the run.
func peakKiB(samples []rssSample, from, to time.Duration) int64 {
	var peak int64
	for _, s := range samples {
		if s.at >= from && s.at < to && s.kib > peak {
			peak = s.kib
		}
	}
	return peak
}
