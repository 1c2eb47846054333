package dispatch_test

import (
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
)

// token is a principal made anew for each access token; it names its
// party (sub) but not the token's other claims.
type token struct{ sub, jti string }

func (p *token) PrincipalID() string { return p.sub }

// TestRequestStateFollowsThePrincipalIdentity: a requestState sealed for
// one IdentifiedPrincipal is accepted for another value naming the same
// party (a refreshed token), refused for another party, and a principal
// naming none ("") is bound to its printed value.
func TestRequestStateFollowsThePrincipalIdentity(t *testing.T) {
	rt := mrtrRuntime(t)
	const tool = "test_input_required_result_request_state"
	send := func(principal any, state any) (map[string]any, int64) {
		t.Helper()
		p := map[string]any{"name": tool, "arguments": map[string]any{}}
		if state != nil {
			p["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept"}}
			p["requestState"] = state
		}
		f := callWith(t, rt, "tools/call", withCaps(p, allCaps), func(r *dispatch.Request) { r.Principal = principal })
		if f.Error != nil {
			return nil, f.Error.Code
		}
		return resultOf(t, f), 0
	}
	r, _ := send(&token{sub: "alice", jti: "1"}, nil)
	state := r["requestState"]
	if _, code := send(&token{sub: "bob", jti: "1"}, state); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("another party: code %d", code)
	}
	if r, code := send(&token{sub: "alice", jti: "2"}, state); code != 0 || r["resultType"] != "complete" {
		t.Fatalf("the same party, a new token: %v %d", r, code)
	}
	r, _ = send(&token{jti: "1"}, nil)
	if _, code := send(&token{jti: "2"}, r["requestState"]); code != jsonrpc.CodeInvalidParams {
		t.Fatalf("no identity, another value: code %d", code)
	}
}
