// This file records the notifications a Runtime sends for a request.

package testfixture

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

// Recorder is a dispatch.Notifier for dispatch-level tests: it keeps every
// request-scoped notification frame in order, checking each against the
// official schema of Version (a failure fails the test).
type Recorder struct {
	t       testing.TB
	version string
	mu      sync.Mutex
	frames  []Recorded
}

// Recorded is one recorded notification, decoded.
type Recorded struct {
	Raw    []byte
	Method string
	Params map[string]any
}

// NewRecorder returns an empty Recorder that reports schema failures to t.
func NewRecorder(t testing.TB) *Recorder { return &Recorder{t: t, version: Version} }

// NewRecorderFor returns an empty Recorder that checks each notification
// against the official schema of version.
func NewRecorderFor(t testing.TB, version string) *Recorder { return &Recorder{t: t, version: version} }

// Notify implements dispatch.Notifier.
func (r *Recorder) Notify(_ context.Context, frame []byte) error {
	if err := testkit.ValidateFrame(r.version, frame, ""); err != nil {
		r.t.Errorf("testfixture: notification fails the %s schema: %v\n%s", r.version, err, frame)
	}
	for _, b := range frame {
		if b >= 0x80 {
			r.t.Errorf("testfixture: notification has non-ASCII bytes: %q", frame)
			break
		}
	}
	n := Recorded{Raw: append([]byte(nil), frame...)}
	var head struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(frame, &head); err != nil {
		r.t.Errorf("testfixture: notification is not JSON: %v", err)
	}
	n.Method, n.Params = head.Method, head.Params
	r.mu.Lock()
	r.frames = append(r.frames, n)
	r.mu.Unlock()
	return nil
}

// Notifications returns the recorded notifications in order.
func (r *Recorder) Notifications() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.frames...)
}
