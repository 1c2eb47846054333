package stdio_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// A client ends its listen stream and the tree closes at once: the
// connection has told the stream's actor to stop, and the tree's closing
// stops the connection before it has heard that actor end, so the
// connection's own stop sends the stream a second Stop that finds it
// gone. That dead letter is expected; the testkit cleanup fails on any
// unexpected one. The race is narrow, hence the repetitions.
func TestTreeClosesRightAfterAStreamIsCancelled(t *testing.T) {
	for i := range 40 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			hub := hub.New(hub.Options{})
			rt, err := dispatch.New(mcp.Implementation{Name: "close-race", Version: "1"}, dispatch.WithSubscriptions(hub))
			if err != nil {
				t.Fatal(err)
			}
			sup, err := supervisor.New(rt)
			if err != nil {
				t.Fatal(err)
			}
			srv := testkit.StartStdioWith(t, sup, rt)
			srv.Send(t, testkit.Request("watch", dispatch.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
			testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("subscription") == 1 })
			srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "watch"}))
			ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
			defer cancel()
			if err := sup.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
