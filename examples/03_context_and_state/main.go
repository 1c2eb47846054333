// Command 03_context_and_state keeps application state where it belongs:
// in the application. A 2026-07-28 server is stateless between requests
// (no session), so the counter store below is an ordinary Go value shared
// by the handlers' closures, guarded by its own mutex, and everything a
// handler needs to know about its request comes from its context:
// dispatch.RequestInfoFromContext (protocol version, client info, vendor
// _meta, the verified principal, the W3C trace context) and ctx itself
// (cancelled when the client cancels or goes away).
//
//	go run ./examples/03_context_and_state          # serves over stdio
//	go run ./examples/03_context_and_state -check   # exercises it in process
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
)

// Counters is the application's own state. The Runtime never holds it;
// handlers reach it through closures, so it can be a database handle, a
// cache or, as here, a map.
type Counters struct {
	mu     sync.Mutex
	counts map[string]int
}

// Add increments a named counter and returns its new value.
func (c *Counters) Add(name string, n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[name] += n
	return c.counts[name]
}

// tenantKey is a vendor _meta key: a client may send extra keys in
// _meta, and handlers read them from RequestInfo.Meta.
const tenantKey = "com.example/tenant"

func newRuntime(counters *Counters) (*dispatch.Runtime, error) {
	type incrementIn struct {
		Name string `json:"name" jsonschema:"the counter to increment"`
		By   int    `json:"by,omitempty" jsonschema:"the increment, 1 when absent"`
	}
	type incrementOut struct {
		Name  string `json:"name"`
		Value int    `json:"value"`
	}
	return dispatch.New(mcp.Implementation{Name: "counters", Version: "1.0.0"},
		dispatch.WithTypedTool(mcp.Tool{Name: "increment", Description: "Increments a named counter, per tenant."},
			func(ctx context.Context, in incrementIn) (incrementOut, error) {
				if in.By == 0 {
					in.By = 1
				}
				// The counter is scoped by the tenant the request names.
				key := tenant(ctx) + "/" + in.Name
				return incrementOut{Name: in.Name, Value: counters.Add(key, in.By)}, nil
			}),
		dispatch.WithTool(mcp.Tool{Name: "whoami", Description: "Describes the request as the server sees it."},
			func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				info := dispatch.RequestInfoFromContext(ctx) // the same as req.Info
				client := "unknown"
				if info.ClientInfo != nil {
					client = info.ClientInfo.Name // unverified: display only
				}
				text := fmt.Sprintf("version=%s client=%s tenant=%s principal=%v transport=%s",
					info.ProtocolVersion, client, tenant(ctx), info.Principal, info.Transport)
				return mcp.TextResult(text), nil
			}),
	)
}

// tenant reads the vendor key from the request's _meta, "default" when
// absent.
func tenant(ctx context.Context) string {
	info := dispatch.RequestInfoFromContext(ctx)
	if info == nil || info.Meta == nil {
		return "default"
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(info.Meta, &meta) != nil {
		return "default"
	}
	var s string
	if json.Unmarshal(meta[tenantKey], &s) != nil || s == "" {
		return "default"
	}
	return s
}

func main() { excheck.Main(example()) }

// example is the server and its -check over the same counters.
func example() (func() (*dispatch.Runtime, error), func(*dispatch.Runtime) error) {
	counters := &Counters{counts: map[string]int{}}
	return func() (*dispatch.Runtime, error) { return newRuntime(counters) },
		func(rt *dispatch.Runtime) error { return checks(rt, counters) }
}
