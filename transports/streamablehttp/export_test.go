package streamablehttp

import (
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/supervisor"
)

// HandlerSupervisor is the tree h's actors live in: its private one when
// it was made without WithSupervisor.
func HandlerSupervisor(h *Handler) *supervisor.Supervisor { return h.sup }

// Defaults the external tests size their inputs by.
const (
	DefaultHeadTimeout  = defaultHeadTimeout
	DefaultMaxBodyBytes = defaultMaxBodyBytes
)

// NoteRefusalAllocs measures the allocations of reporting one refusal
// on h.
func NoteRefusalAllocs(h *Handler) float64 {
	return testing.AllocsPerRun(100, func() {
		h.noteRefusal("POST", instrumentation.RefusalOrigin, 403, -32600, "tools/call", "")
	})
}
