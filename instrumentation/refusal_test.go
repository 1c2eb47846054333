package instrumentation_test

import (
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
)

// Every reason has its own name, and a value outside the set is
// "unknown".
func TestRefusalReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for r := instrumentation.RefusalPath; r <= instrumentation.RefusalLineTooLong; r++ {
		name := r.String()
		if name == "unknown" || seen[name] {
			t.Fatalf("reason %d is named %q", r, name)
		}
		seen[name] = true
	}
	if got := (instrumentation.RefusalLineTooLong + 1).String(); got != "unknown" {
		t.Fatalf("a reason outside the set is %q", got)
	}
	if got := instrumentation.RefusalReason(0).String(); got != "unknown" {
		t.Fatalf("the zero reason is %q", got)
	}
}
