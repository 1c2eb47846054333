package instrumentation_test

import (
	"regexp"
	"testing"

	"github.com/snodo-go/snodo/instrumentation"
)

// Every reason has its own name, in snake case, as metric labels use it.
func TestRefusalReasonNames(t *testing.T) {
	reasons := []instrumentation.RefusalReason{
		instrumentation.RefusalPath,
		instrumentation.RefusalMethodNotAllowed,
		instrumentation.RefusalDraining,
		instrumentation.RefusalOrigin,
		instrumentation.RefusalHost,
		instrumentation.RefusalContentType,
		instrumentation.RefusalAccept,
		instrumentation.RefusalLengthRequired,
		instrumentation.RefusalBodyTooLarge,
		instrumentation.RefusalBodyTimeout,
		instrumentation.RefusalHeaderTooLarge,
		instrumentation.RefusalMalformed,
		instrumentation.RefusalSessionNotFound,
		instrumentation.RefusalSessionInvalid,
		instrumentation.RefusalSessionLimit,
		instrumentation.RefusalStreamOpen,
		instrumentation.RefusalOverloaded,
		instrumentation.RefusalSubscriptionLimit,
		instrumentation.RefusalDuplicateID,
		instrumentation.RefusalConnectionLimit,
		instrumentation.RefusalLineTooLong,
	}
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[instrumentation.RefusalReason]bool{}
	for _, r := range reasons {
		if !snake.MatchString(string(r)) || seen[r] {
			t.Fatalf("reason %q is not a distinct snake-case name", r)
		}
		seen[r] = true
	}
}
