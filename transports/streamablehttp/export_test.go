package streamablehttp

import (
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
)

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
