// A handler's *InputRequired turned into the neutral input_required
// result: the checks that it may ask, asks well, and asks what the client
// can serve.

package dispatch

import (
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// inputRequiredResult is the neutral input_required result.
type inputRequiredResult struct {
	requests map[string]mcp.InputRequest
	state    string // sealed; "" when none
	// appState is the application's State unsealed, for a dialect that
	// serves the input requests itself and re-invokes the handler at
	// once; nil when none.
	appState []byte
}

// inputRequired turns a handler's *InputRequired into the neutral result,
// after checking that the method may return one, that it asks for
// something, that every request is well formed (form schemas flat,
// sampling messages present), and that the client can serve them all.
func (rt *Runtime) inputRequired(c *Call, ir *InputRequired) (any, error) {
	if err := rt.checkInputRequired(c, ir); err != nil {
		return nil, err
	}
	res := &inputRequiredResult{requests: ir.Requests, appState: ir.State}
	if ir.State != nil {
		token, err := rt.state.seal(ir.State, c.Info.Method, c.Params, c.Info.Principal)
		if err != nil {
			return nil, rt.internal(c, "sealing requestState", err)
		}
		res.state = token
	}
	return res, nil
}

// checkInputRequired checks that c's method may ask for input, that ir
// asks for something, that every request is well formed, and that the
// client can serve them all (-32021 naming what it lacks).
func (rt *Runtime) checkInputRequired(c *Call, ir *InputRequired) *jsonrpc.Error {
	if !mrtrMethods[c.Info.Method] {
		return rt.internal(c, "input_required", errors.New("only tools/call, resources/read and prompts/get may ask for input"))
	}
	if len(ir.Requests) == 0 && ir.State == nil {
		return rt.internal(c, "input_required", errors.New("an InputRequired needs at least one request or a State"))
	}
	var lacking []*mcp.ClientCapabilities
	for key, r := range ir.Requests {
		if r == nil {
			return rt.internal(c, "input_required", errors.New("nil input request under key "+key))
		}
		if err := checkInputRequest(r); err != nil {
			return rt.internal(c, "input_required", fmt.Errorf("input request %q: %w", key, err))
		}
		if m := c.Info.ClientCapabilities.Missing(r); m != nil {
			lacking = append(lacking, m)
		}
	}
	// An initialize-era request without a session has no declared
	// capabilities to judge, and no channel for server-to-client
	// requests: its dialect says so (withClientRequests).
	if len(lacking) > 0 && (c.dialect == nil || c.dialect.Era() != eraSession || c.Session != nil) {
		return mcp.NewMissingCapabilityError(lacking...)
	}
	return nil
}

// checkInputRequest reports an input request the protocol would not
// accept: a url elicitation without an absolute URL, a form whose schema
// is not flat, a sampling request without messages or tokens.
func checkInputRequest(r mcp.InputRequest) error {
	switch r := r.(type) {
	case *mcp.ElicitRequest:
		switch r.Mode {
		case mcp.ElicitModeURL:
			if err := checkAbsoluteURI(r.URL); err != nil {
				return errors.New("a url elicitation needs an absolute URL")
			}
			return nil
		case "", mcp.ElicitModeForm:
			return checkFormSchema(r.RequestedSchema)
		}
		return errors.New("elicitation mode must be form or url")
	case *mcp.CreateMessageRequest:
		if len(r.Messages) == 0 || r.MaxTokens <= 0 {
			return errors.New("a sampling request needs messages and a positive MaxTokens")
		}
		for _, m := range r.Messages {
			if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant || len(m.Content) == 0 {
				return errors.New("a sampling message needs the role user or assistant and content")
			}
			for _, b := range m.Content {
				switch b.(type) {
				case *mcp.TextContent, *mcp.ImageContent, *mcp.AudioContent:
				default:
					return errors.New("sampling messages carry only text, image or audio content")
				}
			}
		}
	}
	return nil
}

// checkFormSchema enforces the shape form elicitation allows: an object
// schema whose properties are primitives (string, number, integer,
// boolean) or arrays of enumerated strings.
func checkFormSchema(raw []byte) error {
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if len(raw) == 0 || jsonwire.Unmarshal(raw, &s) != nil || s.Type != "object" || s.Properties == nil {
		return errors.New(`a form elicitation needs a requestedSchema with "type":"object" and "properties"`)
	}
	for name, p := range s.Properties {
		switch p["type"] {
		case "string", "number", "integer", "boolean", "array":
		default:
			return errors.New("form elicitation property " + name + " must be a string, number, integer, boolean or enum array")
		}
	}
	return nil
}
