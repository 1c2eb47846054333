package load

import (
	"slices"
	"time"
)

// Result is one measurement of one server in one scenario. Fields a
// scenario does not measure stay zero.
type Result struct {
	Server   string `json:"server"`
	Scenario string `json:"scenario"`
	// Param is C (stdio), K (HTTP), N (storm, listen).
	Param int `json:"param"`
	// Unsupported: the server lacks the transport or method.
	Unsupported bool   `json:"unsupported,omitempty"`
	Err         string `json:"error,omitempty"`

	// Load scenarios.
	Requests int64 `json:"requests,omitempty"`
	// Errors counts the responses that were JSON-RPC errors or tool
	// results with isError, over the whole run (load scenarios: warm-up,
	// window and drain; the storm: answers before the cancels; the big
	// line: the answer to the request after it). A measurement with any
	// is a failed one.
	Errors     int64   `json:"errors,omitempty"`
	Seconds    float64 `json:"seconds,omitempty"`
	Throughput float64 `json:"throughput,omitempty"` // requests per second
	P50us      float64 `json:"p50us,omitempty"`
	P99us      float64 `json:"p99us,omitempty"`
	CPUPerReq  float64 `json:"cpuPerReqUs,omitempty"` // server CPU µs per request
	// Stall diagnosis (stdio): the longest time in the window without a
	// response, and the longest the driver itself was late waking from a
	// 5 ms sleep. A long gap with a short lag is the server's stall; a
	// lag as long as the gap is the machine pausing both.
	MaxGapUs    float64 `json:"maxGapUs,omitempty"`
	DriverLagUs float64 `json:"driverLagUs,omitempty"`

	// Tasks: the tasks/get a task took to be seen completed (its other
	// figures are the load scenarios', per task).
	GetsPerTask float64 `json:"getsPerTask,omitempty"`

	// Every scenario with a server process.
	PeakRSSKiB int64 `json:"peakRSSKiB,omitempty"`

	// Cancellation storm.
	Started  int64   `json:"started,omitempty"`  // sleep handlers running before the cancels
	Rejected int64   `json:"rejected,omitempty"` // sleep calls answered before the cancels
	StopMs   float64 `json:"stopMs,omitempty"`   // cancels sent → no handler running
	// SendMs is how long the HTTP storm's disconnects, one after another,
	// took, within StopMs (not measured on stdio: one write).
	SendMs             float64 `json:"sendMs,omitempty"`
	Stopped            bool    `json:"stopped,omitempty"` // all stopped within the window and stayed stopped
	Late               int64   `json:"late,omitempty"`    // responses to cancelled calls
	StartedAfterCancel int64   `json:"startedAfterCancel,omitempty"`
	HeapPerSleepB      float64 `json:"heapPerSleepB,omitempty"`
	StackPerSleepB     float64 `json:"stackPerSleepB,omitempty"` // goroutine stacks, not in the heap figure

	// Idle listen streams.
	Streams         int64   `json:"streams,omitempty"`
	HeapPerStreamB  float64 `json:"heapPerStreamB,omitempty"`
	StackPerStreamB float64 `json:"stackPerStreamB,omitempty"`
	RSSPerStreamB   float64 `json:"rssPerStreamB,omitempty"`
	GoroutinesPerSt float64 `json:"goroutinesPerStream,omitempty"`

	// Oversized line.
	OversizeRefused bool `json:"oversizeRefused,omitempty"` // an error answered the big line
	NextAnswered    bool `json:"nextAnswered,omitempty"`    // the request after it was answered
	ConnectionEnded bool `json:"connectionEnded,omitempty"` // the server closed its output instead
	NoAnswer        bool `json:"noAnswer,omitempty"`        // neither within the timeout (30 s)
}

// percentile returns the p-th percentile (0..100) of sorted durations in
// microseconds, nearest rank.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i]) / float64(time.Microsecond)
}

func latencyStats(r *Result, lat []time.Duration) {
	slices.Sort(lat)
	r.P50us = percentile(lat, 50)
	r.P99us = percentile(lat, 99)
}
