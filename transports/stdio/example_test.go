package stdio_test

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

// Start runs the transport in the background, in a supervision tree; any
// code holding the supervisor can then find the connection by its name and
// send the client an application notification.
func ExampleConn_Notify() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		panic(err)
	}
	defer sup.Close(context.Background())
	input, client := io.Pipe() // the client's side writes requests to client
	var output bytes.Buffer
	conn, err := stdio.Start(context.Background(), rt,
		stdio.WithSupervisor(sup),
		stdio.WithInput(input), stdio.WithOutput(&output),
		stdio.WithName("example"),
		stdio.WithNotificationMethods("notifications/example/hello"))
	if err != nil {
		panic(err)
	}
	found, _ := stdio.Lookup(sup, "example")
	err = found.Notify(context.Background(), "notifications/example/hello", map[string]string{"greeting": "h\u00e9llo"})
	fmt.Println("notify:", err)
	client.Close() // end of input
	fmt.Println("wait:", conn.Wait())
	fmt.Print(output.String())
	// Output:
	// notify: <nil>
	// wait: <nil>
	// {"jsonrpc":"2.0","method":"notifications/example/hello","params":{"greeting":"h\u00e9llo"}}
}
