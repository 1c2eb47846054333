package main

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime, counters *Counters) error {
	ctx := context.Background()
	// The principal comes from the transport (an HTTP middleware, say),
	// never from the message.
	c := &excheck.Direct{RT: rt, Setup: func(r *dispatch.Request) { r.Principal = "alice" }}
	params := func(tenant string) map[string]any {
		p := map[string]any{"name": "increment", "arguments": map[string]any{"name": "visits"}}
		if tenant != "" {
			p["_meta"] = map[string]any{tenantKey: tenant}
		}
		return p
	}
	var last float64
	for i := 1; i <= 3; i++ {
		res, err := c.Result(ctx, "tools/call", params("acme"))
		if err != nil {
			return err
		}
		last = res["structuredContent"].(map[string]any)["value"].(float64)
	}
	other, err := c.Result(ctx, "tools/call", params(""))
	if err != nil {
		return err
	}
	if err := excheck.Expect(last == 3 && other["structuredContent"].(map[string]any)["value"] == 1.0,
		"state per tenant: acme=%v default=%v", last, other["structuredContent"]); err != nil {
		return err
	}
	counters.mu.Lock()
	got := fmt.Sprint(counters.counts)
	counters.mu.Unlock()
	if err := excheck.Expect(got == "map[acme/visits:3 default/visits:1]", "the application's store holds %s", got); err != nil {
		return err
	}
	who, err := c.Result(ctx, "tools/call", map[string]any{"name": "whoami", "_meta": map[string]any{tenantKey: "acme"}})
	if err != nil {
		return err
	}
	want := "version=2026-07-28 client=snodo-testkit tenant=acme principal=alice transport=direct"
	if err := excheck.Expect(excheck.Text(who) == want, "whoami:\n got %s\nwant %s", excheck.Text(who), want); err != nil {
		return err
	}
	fmt.Println("application state per tenant, vendor _meta, principal and request info from the context: ok")
	return nil
}
