package stdio_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// A line over the limit is a refusal the Runtime's sink hears, with its
// code and nothing of the line; the line after it reaches the core as
// usual.
func TestOversizeLineIsARefusalEvent(t *testing.T) {
	ev := &testfixture.Events{}
	srv := testkit.StartStdio(t, testRuntime(t, newGate(), dispatch.WithInstrumentation(ev)), stdio.WithLimits(stdio.Limits{MaxLineBytes: 1000}))
	srv.SendRaw(t, append([]byte(strings.Repeat("{", 1000)), '\n'))
	if resp := srv.Client.Call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "next"}}); resp.Error != nil {
		t.Fatalf("the line after an oversize one: %s", resp.Raw)
	}
	got := testfixture.EventsOf[instrumentation.RefusalEvent](ev)
	want := instrumentation.RefusalEvent{Transport: "stdio", Reason: instrumentation.RefusalLineTooLong, Code: -32600}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("refusals %+v, want [%+v]", got, want)
	}
	if starts := testfixture.EventsOf[instrumentation.DispatchStart](ev); len(starts) != 1 || starts[0].Method != "tools/call" {
		t.Fatalf("dispatch starts %+v: only the call after the refused line", starts)
	}
}
