package instrumentation_test

import (
	"os/exec"
	"strings"
	"testing"
)

// goList returns the packages pkgs depend on (themselves included).
func goList(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// The event interface is importable by every layer because it depends on
// the standard library only.
func TestInstrumentationIsDependencyFree(t *testing.T) {
	for _, p := range goList(t, "github.com/snodo-go/snodo/instrumentation") {
		if p == "github.com/snodo-go/snodo/instrumentation" {
			continue
		}
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("instrumentation depends on %s", p)
		}
	}
}

// Only applications import the OpenTelemetry adapter.
func TestCoreDoesNotImportTheAdapter(t *testing.T) {
	core := []string{
		"github.com/snodo-go/snodo/dispatch", "github.com/snodo-go/snodo/actors",
		"github.com/snodo-go/snodo/supervisor", "github.com/snodo-go/snodo/transports/stdio",
		"github.com/snodo-go/snodo/transports/streamablehttp",
	}
	for _, p := range goList(t, core...) {
		if p == "github.com/snodo-go/snodo/instrumentation/otel" {
			t.Fatal("a core package imports instrumentation/otel")
		}
	}
	for _, p := range goList(t, "github.com/snodo-go/snodo/dispatch") {
		if strings.HasPrefix(p, "go.opentelemetry.io/") {
			t.Fatalf("dispatch depends on %s", p)
		}
	}
}
