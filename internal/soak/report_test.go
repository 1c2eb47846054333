package soak_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
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
