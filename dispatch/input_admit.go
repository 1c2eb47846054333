// Admission of the multi round-trip members of a request's params
// (inputResponses, requestState), before any handler runs.

package dispatch

import (
	"encoding/json"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// mrtrMethods are the methods that may answer input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// admitInput checks the MRTR members of a request's params before any
// handler runs: inputResponses must be an object of client results, and
// requestState a string this server sealed for this method, these params
// and this principal, not yet expired. Anything else is -32602.
func (rt *Runtime) admitInput(method string, params []byte, pm *paramMembers, principal any) (*Input, *jsonrpc.Error) {
	if !mrtrMethods[method] {
		return nil, nil
	}
	// Both members were found by the one pass over params admission
	// makes: most calls have neither.
	rawResp, hasResp := pm.responses.in(params)
	rawState, hasState := pm.state.in(params)
	if !hasResp && !hasState {
		return nil, nil
	}
	in := &Input{}
	if hasResp {
		if len(rawResp) == 0 || rawResp[0] != '{' {
			return nil, invalidParams("Invalid params: inputResponses must be an object")
		}
		in.responses = map[string]json.RawMessage{}
		bad := false
		jsonwire.Members(rawResp, func(key, value []byte) bool {
			k, ok := jsonwire.Unquote(key)
			if !ok || !isInputResponse(value) {
				bad = true
				return false
			}
			in.responses[k] = value
			return true
		})
		if bad {
			return nil, invalidParams("Invalid params: every inputResponses value must be an elicitation, sampling or roots result")
		}
	}
	if hasState {
		token, ok := jsonwire.Unquote(rawState)
		if !ok {
			return nil, invalidParams("Invalid params: requestState must be a string")
		}
		state, err := rt.state.open(token, method, params, principal)
		if err != nil {
			rt.logger.Debug("snodo: refused requestState", "method", method, "reason", err)
			return nil, invalidParams("Invalid params: requestState is invalid or expired")
		}
		in.state, in.hasState = state, true
	}
	return in, nil
}

// isInputResponse reports whether raw has the shape of one of the three
// client results an input request can get.
func isInputResponse(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	if action, ok := jsonwire.Member(raw, "action"); ok {
		a, _ := jsonwire.Unquote(action)
		return a == "accept" || a == "decline" || a == "cancel"
	}
	if roots, ok := jsonwire.Member(raw, "roots"); ok {
		return len(roots) > 0 && roots[0] == '['
	}
	role, okRole := jsonwire.Member(raw, "role")
	_, okModel := jsonwire.Member(raw, "model")
	_, okContent := jsonwire.Member(raw, "content")
	return okRole && okModel && okContent && len(role) > 0 && role[0] == '"'
}
