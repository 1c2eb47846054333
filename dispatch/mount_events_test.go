// Tests of relaying a mounted part's change events.

package dispatch_test

import (
	"errors"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// TestMountSharingTheSourceRelaysNothing: a part that publishes on the
// same hub as the Runtime mounting it is not tapped (its events already
// reach the Runtime's listeners), so an event is delivered once instead
// of being published again from inside its own publish without end.
func TestMountSharingTheSourceRelaysNothing(t *testing.T) {
	h := hub.New(hub.Options{})
	part := mustNew(t, dispatch.WithSubscriptions(h), dispatch.WithTool(mcp.Tool{Name: "t"}, okTool))
	mustNew(t, dispatch.WithSubscriptions(h), dispatch.WithMount("p", part))
	l := h.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	defer l.Close()
	if r := h.ToolsListChanged(); r.Matched != 1 {
		t.Fatalf("publish: %+v", r)
	}
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	if ev, err := l.Next(); !errors.Is(err, dispatch.ErrNoEvent) {
		t.Fatalf("the event came back: %+v, %v", ev, err)
	}
}
