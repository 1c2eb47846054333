package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func checks(rt *dispatch.Runtime, policy *Policy) error {
	ctx := context.Background()
	as := func(u *User) *excheck.Direct {
		return &excheck.Direct{RT: rt, Setup: func(r *dispatch.Request) {
			if u != nil {
				r.Principal = u
			}
		}}
	}
	alice, root := as(&User{Name: "alice"}), as(&User{Name: "root", Admin: true})

	names := func(c *excheck.Direct) (string, error) {
		res, err := c.Result(ctx, "tools/list", nil)
		if err != nil {
			return "", err
		}
		var out []string
		for _, t := range res["tools"].([]any) {
			out = append(out, t.(map[string]any)["name"].(string))
		}
		return strings.Join(out, ","), nil
	}
	got, err := names(alice)
	if err != nil {
		return err
	}
	if err := excheck.Expect(got == "status", "alice sees %q", got); err != nil {
		return err
	}
	if got, err = names(root); err != nil {
		return err
	}
	if err := excheck.Expect(got == "reset_database,status", "root sees %q", got); err != nil {
		return err
	}
	// Called anyway: the application's own code and message.
	e, err := alice.Fail(ctx, "tools/call", map[string]any{"name": "reset_database"}, codeForbidden)
	if err != nil {
		return err
	}
	if err := excheck.Expect(strings.HasPrefix(e.Message, "Forbidden"), "refusal: %+v", e); err != nil {
		return err
	}
	res, err := root.Result(ctx, "tools/call", map[string]any{"name": "reset_database"})
	if err != nil {
		return err
	}
	if err := excheck.Expect(excheck.Text(res) == "reset", "root's call: %v", res); err != nil {
		return err
	}
	// Concealed: the same answer as for a resource that does not exist.
	hidden, err := alice.Fail(ctx, "resources/read", map[string]any{"uri": "secrets://keys"}, -32602)
	if err != nil {
		return err
	}
	missing, err := alice.Fail(ctx, "resources/read", map[string]any{"uri": "secrets://nothing"}, -32602)
	if err != nil {
		return err
	}
	if err := excheck.Expect(hidden.Message == missing.Message, "concealed %q vs missing %q", hidden.Message, missing.Message); err != nil {
		return err
	}
	list, err := alice.Result(ctx, "resources/list", nil)
	if err != nil {
		return err
	}
	if err := excheck.Expect(len(list["resources"].([]any)) == 0, "alice lists %v", list["resources"]); err != nil {
		return err
	}
	// Nothing in the message can claim an identity.
	if _, err := as(nil).Fail(ctx, "tools/call", map[string]any{"name": "reset_database", "_meta": map[string]any{"principal": "root"}}, codeForbidden); err != nil {
		return err
	}
	policy.mu.Lock()
	audit := strings.Join(policy.audit, "\n")
	policy.mu.Unlock()
	want := strings.Join([]string{
		"alice tools/call reset_database deny",
		"root tools/call reset_database allow",
		"alice resources/read secrets://keys deny",
		"anonymous tools/call reset_database deny",
	}, "\n")
	if err := excheck.Expect(audit == want, "audit:\n%s\nwant:\n%s", audit, want); err != nil {
		return err
	}
	fmt.Println("filtered discovery, own refusal code, concealment, principal from the transport only, audit: ok")
	return nil
}
