package clustertest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/backplane/clustertest"
	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// A test of three instances behind the proxy: a client through it, a
// tool that says which instance ran it, and one instance stopped. Start
// needs the test's testing.TB, so this example is compiled, not run; the
// package's tests run the same steps.
func ExampleStart() {
	testAcrossInstances := func(t *testing.T) {
		cl := clustertest.Start(t, clustertest.Config{
			Instances: 3,
			Options: func(in *clustertest.Instance) []dispatch.Option {
				return []dispatch.Option{dispatch.WithTool(
					mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
					func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
						return mcp.TextResult(in.Name), nil
					})}
			},
		})
		c := testkit.Connect(t, &client.HTTPTransport{URL: cl.URL()}, client.WithProtocolVersions(mcp.Version20260728))
		cl.Instances[1].Stop(t)
		for range 3 {
			// Each runs on i0 or i2: the proxy skips the stopped i1.
			if _, err := c.CallTool(context.Background(), "whoami", map[string]any{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = testAcrossInstances
}
