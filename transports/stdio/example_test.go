package stdio_test

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/stdio"
)

// Start runs the transport in the background; any code can then reach the
// connection by its name and send the client an application notification.
func ExampleNotify() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	input, client := io.Pipe() // the client's side writes requests to client
	var output bytes.Buffer
	conn, err := stdio.Start(context.Background(), rt,
		stdio.WithInput(input), stdio.WithOutput(&output),
		stdio.WithName("example"),
		stdio.WithNotificationMethods("notifications/example/hello"))
	if err != nil {
		panic(err)
	}
	err = stdio.Notify(context.Background(), stdio.Name("example"), "notifications/example/hello", map[string]string{"greeting": "h\u00e9llo"})
	fmt.Println("notify:", err)
	client.Close() // end of input
	fmt.Println("wait:", conn.Wait())
	fmt.Print(output.String())
	// Output:
	// notify: <nil>
	// wait: <nil>
	// {"jsonrpc":"2.0","method":"notifications/example/hello","params":{"greeting":"h\u00e9llo"}}
}
