package main

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime) error {
	ctx := context.Background()
	c := &excheck.Direct{RT: rt}
	complete := func(ref map[string]any, arg, value string, chosen map[string]any) (map[string]any, error) {
		params := map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}
		if chosen != nil {
			params["context"] = map[string]any{"arguments": chosen}
		}
		r, err := c.Result(ctx, "completion/complete", params)
		if err != nil {
			return nil, err
		}
		return r["completion"].(map[string]any), nil
	}
	disc, err := c.Result(ctx, "server/discover", nil)
	if err != nil {
		return err
	}
	if err := excheck.Expect(disc["capabilities"].(map[string]any)["completions"] != nil, "completions not advertised: %v", disc["capabilities"]); err != nil {
		return err
	}
	prompt := map[string]any{"type": "ref/prompt", "name": "plan_trip"}
	got, err := complete(prompt, "country", "p", nil)
	if err != nil {
		return err
	}
	if err := excheck.Expect(fmt.Sprint(got["values"]) == "[pt]", "country: %v", got); err != nil {
		return err
	}
	got, err = complete(prompt, "city", "b", map[string]any{"country": "es"})
	if err != nil {
		return err
	}
	if err := excheck.Expect(fmt.Sprint(got["values"]) == "[Barcelona Bilbao]", "city in es: %v", got); err != nil {
		return err
	}
	tmpl := map[string]any{"type": "ref/resource", "uri": "weather://{country}/{city}"}
	got, err = complete(tmpl, "city", "", map[string]any{"country": "pt"})
	if err != nil {
		return err
	}
	if err := excheck.Expect(len(got["values"].([]any)) == 5, "template variable: %v", got); err != nil {
		return err
	}
	got, err = complete(map[string]any{"type": "ref/prompt", "name": "pick_number"}, "n", "", nil)
	if err != nil {
		return err
	}
	if err := excheck.Expect(len(got["values"].([]any)) == 100 && got["hasMore"] == true, "cap: %d values, hasMore %v", len(got["values"].([]any)), got["hasMore"]); err != nil {
		return err
	}
	if _, err := c.Fail(ctx, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "x", "value": ""}}, -32602); err != nil {
		return err
	}
	fmt.Println("capability, prompt argument, context-dependent and template completions, the 100-value cap: ok")
	return nil
}
