package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}

	resp, err := c.Call(ctx, "tools/list", nil)
	if err != nil {
		return err
	}
	list := resp.Result
	tools := map[string]map[string]any{}
	for _, t := range list["tools"].([]any) {
		tool := t.(map[string]any)
		tools[tool["name"].(string)] = tool
	}
	in, _ := json.Marshal(tools["forecast"]["inputSchema"])
	want := `{"additionalProperties":false,"properties":{"city":{"description":"the city to forecast","type":"string"},"days":{"description":"how many days, 1 to 7","type":"integer"}},"required":["city","days"],"type":"object"}`
	if err := excheck.Expect(string(in) == want, "inferred input schema:\n got %s\nwant %s", in, want); err != nil {
		return err
	}
	if err := excheck.Expect(tools["forecast"]["outputSchema"] != nil, "no inferred output schema"); err != nil {
		return err
	}
	if err := excheck.Expect(strings.Contains(string(resp.Raw), `"outputSchema":`+statsSchema), "raw output schema changed: %s", resp.Raw); err != nil {
		return err
	}

	res, err := c.Result(ctx, "tools/call", map[string]any{"name": "forecast", "arguments": map[string]any{"city": "Porto", "days": 2}})
	if err != nil {
		return err
	}
	sc, _ := json.Marshal(res["structuredContent"])
	if err := excheck.Expect(string(sc) == `{"city":"Porto","highs":[20,20.5]}` && excheck.Text(res) == string(sc), "forecast: %v", res); err != nil {
		return err
	}
	res, err = c.Result(ctx, "tools/call", map[string]any{"name": "forecast", "arguments": map[string]any{"city": "Porto", "days": "two"}})
	if err != nil {
		return err
	}
	if err := excheck.Expect(res["isError"] == true && excheck.Text(res) == `arguments.days: expected integer`, "rejected before the handler: %v", res); err != nil {
		return err
	}
	res, err = c.Result(ctx, "tools/call", map[string]any{"name": "forecast", "arguments": map[string]any{"city": "Porto", "days": 9}})
	if err != nil {
		return err
	}
	if err := excheck.Expect(res["isError"] == true && excheck.Text(res) == "days must be from 1 to 7, got 9", "handler error: %v", res); err != nil {
		return err
	}
	res, err = c.Result(ctx, "tools/call", map[string]any{"name": "stats", "arguments": map[string]any{"values": []float64{1, 2, 6}}})
	if err != nil {
		return err
	}
	if sc := res["structuredContent"].(map[string]any); sc["count"] != 3.0 || sc["mean"] != 3.0 {
		return fmt.Errorf("stats: %v", res)
	}
	// Output that breaks the declared schema is never sent. The Runtime
	// logs why; a quiet copy keeps the check's output clean.
	quiet, err := dispatch.New(rt.Info(), dispatch.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		dispatch.WithTool(rt.Tools()[1], stats))
	if err != nil {
		return err
	}
	if _, err := (&excheck.Direct{RT: quiet}).Fail(ctx, "tools/call", map[string]any{"name": "stats", "arguments": map[string]any{"values": []float64{}}}, -32603); err != nil {
		return err
	}
	fmt.Println("inferred and raw schemas, structured output, validation before and after the handler: ok")
	return nil
}
