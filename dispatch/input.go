// The handler-facing half of multi round-trip requests: the
// *InputRequired a handler returns, and the Input its retry reads.

package dispatch

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

// Multi round-trip requests (2026-07-28). A tools/call, resources/read or
// prompts/get handler that needs something from the client returns an
// *InputRequired instead of a result. The client fulfils the input
// requests and retries the same method and params with a new id, adding
// inputResponses and echoing requestState; the handler runs again from
// the start and finds the answers in its request's Input.

// InputRequired is returned as an error by a handler that needs client
// input before it can finish. It becomes a result with resultType
// "input_required". It must carry at least one request or a non-nil
// State; any method other than tools/call, resources/read and prompts/get
// returning it is a server error (-32603).
//
// Every request must be one the client declared it can serve in this
// request's capabilities (check with [mcp.ClientCapabilities.Missing]);
// otherwise the client gets -32021 with data.requiredCapabilities.
type InputRequired struct {
	// Requests maps keys of the server's choosing to input requests.
	Requests map[string]mcp.InputRequest
	// State, when non-nil, is application state carried through the
	// client to the retry, where [Input.State] returns it. The Runtime
	// seals it with HMAC-SHA256, bound to the method, the salient params,
	// the principal and an expiry: the client can neither read it as
	// anything meaningful nor change it undetected. It is signed, not
	// encrypted: keep secrets out of it.
	State []byte
}

// Error implements error.
func (e *InputRequired) Error() string { return "dispatch: input required" }

// Input is what a retried request brings back: the client's answers to
// the previous round's input requests and the application state it
// sealed. Its methods are safe on a nil *Input, which is what the first
// round sees.
type Input struct {
	responses map[string]json.RawMessage
	state     []byte
	hasState  bool
}

// Keys returns the keys of the responses, sorted.
func (in *Input) Keys() []string {
	if in == nil {
		return nil
	}
	keys := make([]string, 0, len(in.responses))
	for k := range in.responses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Raw returns the response under key as sent (a proxy relays it as is).
func (in *Input) Raw(key string) (json.RawMessage, bool) {
	if in == nil {
		return nil, false
	}
	r, ok := in.responses[key]
	return r, ok
}

// State returns the application state sealed in the previous round's
// InputRequired, and whether the retry carried one.
func (in *Input) State() ([]byte, bool) {
	if in == nil {
		return nil, false
	}
	return in.state, in.hasState
}

// Elicitation returns the response under key as an elicitation result;
// false when it is absent or is not one.
func (in *Input) Elicitation(key string) (*mcp.ElicitResult, bool) {
	var r mcp.ElicitResult
	if !in.decode(key, &r) || (r.Action != "accept" && r.Action != "decline" && r.Action != "cancel") {
		return nil, false
	}
	return &r, true
}

// Sampling returns the response under key as a sampling result; false
// when it is absent or is not one.
func (in *Input) Sampling(key string) (*mcp.CreateMessageResult, bool) {
	var r mcp.CreateMessageResult
	if !in.decode(key, &r) || r.Role == "" || r.Model == "" || len(r.Content) == 0 {
		return nil, false
	}
	return &r, true
}

// Roots returns the response under key as a roots result; false when it
// is absent or is not one.
func (in *Input) Roots(key string) (*mcp.ListRootsResult, bool) {
	raw, ok := in.Raw(key)
	if !ok {
		return nil, false
	}
	if roots, has := jsonwire.Member(raw, "roots"); !has || len(roots) == 0 || roots[0] != '[' {
		return nil, false
	}
	var r mcp.ListRootsResult
	if jsonwire.Unmarshal(raw, &r) != nil {
		return nil, false
	}
	return &r, true
}

func (in *Input) decode(key string, v any) bool {
	raw, ok := in.Raw(key)
	return ok && jsonwire.Unmarshal(raw, v) == nil
}

// InputFromContext returns the Input of the request a handler is serving:
// nil on a first round or outside a handler. Typed tool handlers, which
// receive no request value, read their answers here.
func InputFromContext(ctx context.Context) *Input {
	if s := stateFrom(ctx); s != nil {
		return s.call.Input
	}
	return nil
}
