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

	list, err := c.Result(ctx, "resources/list", nil)
	if err != nil {
		return err
	}
	res := list["resources"].([]any)
	if err := excheck.Expect(len(res) == 2 && res[0].(map[string]any)["uri"] == "docs://index" && res[1].(map[string]any)["uri"] == "docs://logo.png",
		"resources/list: %v", res); err != nil {
		return err
	}
	if err := excheck.Expect(list["ttlMs"] == 300000.0 && list["cacheScope"] == "public", "cache hint: %v %v", list["ttlMs"], list["cacheScope"]); err != nil {
		return err
	}
	tl, err := c.Result(ctx, "resources/templates/list", nil)
	if err != nil {
		return err
	}
	tpl := tl["resourceTemplates"].([]any)
	if err := excheck.Expect(len(tpl) == 1 && tpl[0].(map[string]any)["uriTemplate"] == "docs://pages/{name}", "templates: %v", tpl); err != nil {
		return err
	}
	read := func(uri string) (map[string]any, error) {
		r, err := c.Result(ctx, "resources/read", map[string]any{"uri": uri})
		if err != nil {
			return nil, err
		}
		return r["contents"].([]any)[0].(map[string]any), nil
	}
	page, err := read("docs://pages/install")
	if err != nil {
		return err
	}
	if err := excheck.Expect(page["text"] == docs["install"] && page["mimeType"] == "text/markdown", "page: %v", page); err != nil {
		return err
	}
	logo, err := read("docs://logo.png")
	if err != nil {
		return err
	}
	if err := excheck.Expect(logo["blob"] == "iVBORw0KGgo=", "blob: %v", logo); err != nil {
		return err
	}
	e, err := c.Fail(ctx, "resources/read", map[string]any{"uri": "docs://pages/missing"}, -32602)
	if err != nil {
		return err
	}
	if err := excheck.Expect(e.Data["uri"] == "docs://pages/missing", "not found data: %v", e.Data); err != nil {
		return err
	}
	if _, err := c.Fail(ctx, "resources/read", map[string]any{"uri": "other://x"}, -32602); err != nil {
		return err
	}
	fmt.Println("list, templates, text and binary reads, cache hints, not found: ok")
	return nil
}
