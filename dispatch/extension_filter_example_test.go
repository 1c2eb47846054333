// The runnable example of an extension's listen filter member.

package dispatch_test

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// An extension adds a member to the listen filter (ExtensionFilter); its
// events name a key of that member and reach the listeners that follow
// the key. The tasks extension does this with taskIds.
func ExampleExtensionFilter() {
	hub := hub.New(hub.Options{})
	_, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithSubscriptions(hub),
		dispatch.WithExtension(dispatch.Extension{
			ID:       "com.example/jobs",
			Versions: []string{mcp.Version20260728},
			Methods: map[string]dispatch.ExtensionHandler{"jobs/get": func(context.Context, *dispatch.ExtensionRequest) (any, error) {
				return map[string]any{}, nil
			}},
			// A listen request that declares the extension may name
			// "jobIds"; Allow could keep only the caller's own.
			Filters: []dispatch.ExtensionFilter{{Member: "jobIds", Method: "notifications/jobs"}},
		}))
	if err != nil {
		panic(err)
	}
	// A listen stream naming jobIds ["J1"] attaches to the hub like this.
	l := hub.Attach(mcp.SubscriptionFilter{Keys: map[string][]string{"jobIds": {"J1"}}}, nil)
	defer l.Close()

	for _, job := range []string{"J1", "J2"} {
		r, _ := hub.Publish(dispatch.Event{Kind: dispatch.EventExtension, Member: "jobIds", Key: job,
			Method: "notifications/jobs", Params: []byte(`{"jobId":"` + job + `","state":"done"}`)})
		fmt.Println(job, "matched", r.Matched)
	}
	ev, _ := l.Next()
	frame, _ := dispatch.EncodeEvent(ev, jsonrpc.StringID("listen-1"))
	fmt.Println(string(frame))
	// Output:
	// J1 matched 1
	// J2 matched 0
	// {"jsonrpc":"2.0","method":"notifications/jobs","params":{"jobId":"J1","state":"done","_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}
}
