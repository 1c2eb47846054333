package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/snodo-go/snodo/jsonrpc"
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
// request's capabilities (check with [ClientCapabilities.Supports]);
// otherwise the client gets -32021 with data.requiredCapabilities.
type InputRequired struct {
	// Requests maps keys of the server's choosing to input requests.
	Requests map[string]InputRequest
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

// InputRequest is one request for client input: *ElicitRequest,
// *CreateMessageRequest or *ListRootsRequest.
type InputRequest interface {
	// Method is the request's method, such as "elicitation/create".
	Method() string
	// missing returns what caps lacks to serve the request, or nil.
	missing(caps ClientCapabilities) *ClientCapabilities
	// check reports a request the protocol would not accept.
	check() error
}

// ElicitRequest asks the user for input, through a form ("form" mode, the
// default) or by sending them to a URL ("url" mode, for anything
// sensitive).
type ElicitRequest struct {
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is a flat object schema of primitive properties
	// (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open (url mode).
	URL  string         `json:"url,omitempty"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// ElicitForm returns a form-mode elicitation.
func ElicitForm(message string, requestedSchema json.RawMessage) *ElicitRequest {
	return &ElicitRequest{Mode: "form", Message: message, RequestedSchema: requestedSchema}
}

// ElicitURL returns a url-mode elicitation.
func ElicitURL(message, url string) *ElicitRequest {
	return &ElicitRequest{Mode: "url", Message: message, URL: url}
}

// Method implements InputRequest.
func (*ElicitRequest) Method() string { return "elicitation/create" }

func (r *ElicitRequest) missing(caps ClientCapabilities) *ClientCapabilities {
	e := caps.Elicitation
	if r.Mode == "url" {
		if e == nil || e.URL == nil {
			return &ClientCapabilities{Elicitation: &ElicitationCapability{URL: &struct{}{}}}
		}
		return nil
	}
	// An empty elicitation capability means form mode only.
	if e == nil || e.Form == nil && e.URL != nil {
		return &ClientCapabilities{Elicitation: &ElicitationCapability{Form: &struct{}{}}}
	}
	return nil
}

func (r *ElicitRequest) check() error {
	switch r.Mode {
	case "url":
		if err := checkAbsoluteURI(r.URL); err != nil {
			return errors.New("a url elicitation needs an absolute URL")
		}
		return nil
	case "", "form":
		return checkFormSchema(r.RequestedSchema)
	}
	return errors.New("elicitation mode must be form or url")
}

// CreateMessageRequest asks the client to sample a language model.
// Sampling is deprecated in 2026-07-28 but still served.
type CreateMessageRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	Metadata         map[string]any    `json:"metadata,omitempty"`
	// Tools and ToolChoice need the client's sampling.tools capability.
	Tools      []Tool         `json:"tools,omitempty"`
	ToolChoice *ToolChoice    `json:"toolChoice,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// ModelPreferences are the server's hints for model selection.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model or family.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoice says how the sampled model may use tools: "auto",
// "required" or "none".
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// Method implements InputRequest.
func (*CreateMessageRequest) Method() string { return "sampling/createMessage" }

func (r *CreateMessageRequest) missing(caps ClientCapabilities) *ClientCapabilities {
	need := &SamplingCapability{}
	if len(r.Tools) > 0 || r.ToolChoice != nil {
		need.Tools = &struct{}{}
	}
	if r.IncludeContext != "" && r.IncludeContext != "none" {
		need.Context = &struct{}{}
	}
	s := caps.Sampling
	if s == nil || need.Tools != nil && s.Tools == nil || need.Context != nil && s.Context == nil {
		return &ClientCapabilities{Sampling: need}
	}
	return nil
}

func (r *CreateMessageRequest) check() error {
	if len(r.Messages) == 0 || r.MaxTokens <= 0 {
		return errors.New("a sampling request needs messages and a positive MaxTokens")
	}
	for _, m := range r.Messages {
		if m.Role != RoleUser && m.Role != RoleAssistant || m.Content == nil {
			return errors.New("a sampling message needs the role user or assistant and content")
		}
		switch m.Content.ContentType() {
		case "text", "image", "audio":
		default:
			return errors.New("sampling messages carry only text, image or audio content")
		}
	}
	return nil
}

// ListRootsRequest asks the client for its roots. Roots are deprecated in
// 2026-07-28 but still served.
type ListRootsRequest struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// Method implements InputRequest.
func (*ListRootsRequest) Method() string { return "roots/list" }

func (*ListRootsRequest) check() error { return nil }

func (*ListRootsRequest) missing(caps ClientCapabilities) *ClientCapabilities {
	if caps.Roots == nil {
		return &ClientCapabilities{Roots: &RootsCapability{}}
	}
	return nil
}

// Supports reports whether a client with these capabilities can serve r.
func (c ClientCapabilities) Supports(r InputRequest) bool { return r.missing(c) == nil }

// ElicitResult is the client's answer to an elicitation.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content holds the submitted form values when Action is "accept".
	Content map[string]any `json:"content,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	Role       Role   `json:"role"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
	// Content is one content block or an array of them, as sent.
	Content json.RawMessage `json:"content"`
}

// Text returns the text of a single text content block, or "".
func (r *CreateMessageResult) Text() string {
	var b struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if jsonrpc.Unmarshal(r.Content, &b) != nil || b.Type != "text" {
		return ""
	}
	return b.Text
}

// ListRootsResult is the client's answer to a roots request.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
}

// Root is a directory or file the client exposes.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

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

// Raw returns the response under key as sent.
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
func (in *Input) Elicitation(key string) (*ElicitResult, bool) {
	var r ElicitResult
	if !in.decode(key, &r) || (r.Action != "accept" && r.Action != "decline" && r.Action != "cancel") {
		return nil, false
	}
	return &r, true
}

// Sampling returns the response under key as a sampling result; false
// when it is absent or is not one.
func (in *Input) Sampling(key string) (*CreateMessageResult, bool) {
	var r CreateMessageResult
	if !in.decode(key, &r) || r.Role == "" || r.Model == "" || len(r.Content) == 0 {
		return nil, false
	}
	return &r, true
}

// Roots returns the response under key as a roots result; false when it
// is absent or is not one.
func (in *Input) Roots(key string) (*ListRootsResult, bool) {
	raw, ok := in.Raw(key)
	if !ok {
		return nil, false
	}
	if roots, has := jsonrpc.Member(raw, "roots"); !has || len(roots) == 0 || roots[0] != '[' {
		return nil, false
	}
	var r ListRootsResult
	if jsonrpc.Unmarshal(raw, &r) != nil {
		return nil, false
	}
	return &r, true
}

func (in *Input) decode(key string, v any) bool {
	raw, ok := in.Raw(key)
	return ok && jsonrpc.Unmarshal(raw, v) == nil
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

// mrtrMethods are the methods that may answer input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// inputRequiredResult is the neutral input_required result.
type inputRequiredResult struct {
	requests map[string]InputRequest
	state    string // sealed; "" when none
	// appState is the application's State unsealed, for a dialect that
	// serves the input requests itself and re-invokes the handler at
	// once; nil when none.
	appState []byte
}

// admitInput checks the MRTR members of a request's params before any
// handler runs: inputResponses must be an object of client results, and
// requestState a string this server sealed for this method, these params
// and this principal, not yet expired. Anything else is -32602.
func (rt *Runtime) admitInput(method string, params []byte, principal any) (*Input, *jsonrpc.Error) {
	if !mrtrMethods[method] {
		return nil, nil
	}
	// One pass over params for both members: most calls have neither, and
	// looking for each on its own would scan the whole params twice.
	var rawResp, rawState []byte
	var hasResp, hasState bool
	jsonrpc.Members(params, func(key, value []byte) bool {
		switch {
		case !hasResp && jsonrpc.KeyEquals(key, "inputResponses"):
			rawResp, hasResp = value, true
		case !hasState && jsonrpc.KeyEquals(key, "requestState"):
			rawState, hasState = value, true
		}
		return !hasResp || !hasState
	})
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
		jsonrpc.Members(rawResp, func(key, value []byte) bool {
			k, ok := jsonrpc.Unquote(key)
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
		token, ok := jsonrpc.Unquote(rawState)
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
	if action, ok := jsonrpc.Member(raw, "action"); ok {
		a, _ := jsonrpc.Unquote(action)
		return a == "accept" || a == "decline" || a == "cancel"
	}
	if roots, ok := jsonrpc.Member(raw, "roots"); ok {
		return len(roots) > 0 && roots[0] == '['
	}
	role, okRole := jsonrpc.Member(raw, "role")
	_, okModel := jsonrpc.Member(raw, "model")
	_, okContent := jsonrpc.Member(raw, "content")
	return okRole && okModel && okContent && len(role) > 0 && role[0] == '"'
}

// inputRequired turns a handler's *InputRequired into the neutral result,
// after checking that the method may return one, that it asks for
// something, that every request is well formed (form schemas flat,
// sampling messages present), and that the client can serve them all.
func (rt *Runtime) inputRequired(c *Call, ir *InputRequired) (any, error) {
	if !mrtrMethods[c.Info.Method] {
		return nil, rt.internal(c, "input_required", errors.New("only tools/call, resources/read and prompts/get may ask for input"))
	}
	if len(ir.Requests) == 0 && ir.State == nil {
		return nil, rt.internal(c, "input_required", errors.New("an InputRequired needs at least one request or a State"))
	}
	var need ClientCapabilities
	lacking := false
	for key, r := range ir.Requests {
		if r == nil {
			return nil, rt.internal(c, "input_required", errors.New("nil input request under key "+key))
		}
		if err := r.check(); err != nil {
			return nil, rt.internal(c, "input_required", fmt.Errorf("input request %q: %w", key, err))
		}
		if m := r.missing(c.Info.ClientCapabilities); m != nil {
			lacking = true
			mergeCapabilities(&need, m)
		}
	}
	// An initialize-era request without a session has no declared
	// capabilities to judge, and no channel for server-to-client
	// requests: its dialect says so (withClientRequests).
	if lacking && (c.Dialect == nil || c.Dialect.Era() != EraSession || c.Session != nil) {
		return nil, jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "Missing required client capability").
			WithData(map[string]any{"requiredCapabilities": need})
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

func mergeCapabilities(dst, src *ClientCapabilities) {
	if src.Elicitation != nil {
		if dst.Elicitation == nil {
			dst.Elicitation = &ElicitationCapability{}
		}
		if src.Elicitation.Form != nil {
			dst.Elicitation.Form = src.Elicitation.Form
		}
		if src.Elicitation.URL != nil {
			dst.Elicitation.URL = src.Elicitation.URL
		}
	}
	if src.Sampling != nil {
		if dst.Sampling == nil {
			dst.Sampling = &SamplingCapability{}
		}
		if src.Sampling.Tools != nil {
			dst.Sampling.Tools = src.Sampling.Tools
		}
		if src.Sampling.Context != nil {
			dst.Sampling.Context = src.Sampling.Context
		}
	}
	if src.Roots != nil {
		dst.Roots = src.Roots
	}
}

// checkFormSchema enforces the shape form elicitation allows: an object
// schema whose properties are primitives (string, number, integer,
// boolean) or arrays of enumerated strings.
func checkFormSchema(raw []byte) error {
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if len(raw) == 0 || jsonrpc.Unmarshal(raw, &s) != nil || s.Type != "object" || s.Properties == nil {
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
