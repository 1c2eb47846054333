// Command 23_authorization applies one policy to everything a server
// offers. The Authorizer is asked twice: while a list is built (a refused
// component is left out before paging, so it never shows) and before a
// component is used (allow; conceal it as if it did not exist; or refuse
// with the application's own JSON-RPC error). The principal it sees is
// the one the transport attached (an HTTP middleware, say), never
// anything the client wrote in the message. An audit hook records every
// decision.
//
//	go run ./examples/23_authorization          # serves over stdio (as an anonymous user)
//	go run ./examples/23_authorization -check   # exercises the policy in process
package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// User is the verified identity the application's authentication attaches
// as the request's principal.
type User struct {
	Name  string
	Admin bool
}

// codeForbidden is the application's own refusal code (JSON-RPC reserves
// -32000 to -32099 for servers).
const codeForbidden = -32003

// Policy is the application's authorization: admin tools are for admins
// (visible to nobody else, refused with codeForbidden if called anyway),
// and the secret resource is concealed from everyone but admins.
type Policy struct {
	mu    sync.Mutex
	audit []string
}

// Authorize implements dispatch.Authorizer.
func (p *Policy) Authorize(_ context.Context, a *dispatch.Access) error {
	user, _ := a.Info.Principal.(*User)
	admin := user != nil && user.Admin
	var err error
	switch {
	case a.Kind == dispatch.KindTool && a.Name == "reset_database" && !admin:
		if a.Phase == dispatch.PhaseInvocation {
			err = &jsonrpc.Error{Code: codeForbidden, Message: "Forbidden: reset_database needs an administrator"}
		} else {
			err = dispatch.ErrConceal
		}
	case a.Kind == dispatch.KindResource && a.Name == "secrets://keys" && !admin:
		err = dispatch.ErrConceal // looks exactly like an unknown resource
	}
	if a.Phase == dispatch.PhaseInvocation {
		p.record(user, a, err)
	}
	return err
}

// record is the audit hook: who used what, and the decision.
func (p *Policy) record(u *User, a *dispatch.Access, err error) {
	who := "anonymous"
	if u != nil {
		who = u.Name
	}
	decision := "allow"
	if err != nil {
		decision = "deny"
	}
	p.mu.Lock()
	p.audit = append(p.audit, fmt.Sprintf("%s %s %s %s", who, a.Method, a.Name, decision))
	p.mu.Unlock()
}

func newRuntime(policy *Policy) (*dispatch.Runtime, error) {
	text := func(s string) dispatch.ToolHandler {
		return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(s), nil
		}
	}
	return dispatch.New(mcp.Implementation{Name: "guarded", Version: "1.0.0"},
		dispatch.WithAuthorizer(policy),
		dispatch.WithTool(mcp.Tool{Name: "status", Description: "Service status."}, text("ok")),
		dispatch.WithTool(mcp.Tool{Name: "reset_database", Description: "Drops every table."}, text("reset")),
		dispatch.WithResource(mcp.Resource{URI: "secrets://keys", Name: "keys"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "k1")}}, nil
			}),
	)
}

func main() { excheck.Main(example()) }

// example is the server and its -check over the same policy.
func example() (func() (*dispatch.Runtime, error), func(*dispatch.Runtime) error) {
	policy := &Policy{}
	return func() (*dispatch.Runtime, error) { return newRuntime(policy) },
		func(rt *dispatch.Runtime) error { return checks(rt, policy) }
}
