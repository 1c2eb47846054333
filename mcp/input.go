// Requests for client input (elicitation, sampling, roots), the client's
// answers, and the input_required result that carries the requests.

package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// InputRequest is one request for client input: *ElicitRequest,
// *CreateMessageRequest or *ListRootsRequest. On 2026-07-28 it travels in
// an [InputRequiredResult]; on the earlier revisions the server sends it
// as a server-to-client request.
type InputRequest interface {
	// Method is the request's method, such as "elicitation/create".
	Method() string
	// missing returns what caps lacks to serve the request, or nil.
	missing(caps ClientCapabilities) *ClientCapabilities
}

// Elicitation modes.
const (
	// ElicitModeForm asks through a form described by a flat schema.
	ElicitModeForm = "form"
	// ElicitModeURL sends the user to a URL (anything sensitive).
	ElicitModeURL = "url"
)

// ElicitRequest asks the user for input, through a form (form mode, the
// default) or by sending them to a URL (url mode).
type ElicitRequest struct {
	// Mode is ElicitModeForm or ElicitModeURL; empty means form.
	Mode string `json:"mode,omitempty"`
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is a flat object schema of primitive properties
	// (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open (url mode).
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a url-mode elicitation (2025-11-25).
	ElicitationID string `json:"elicitationId,omitempty"`
	// Meta is the request's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ElicitForm returns a form-mode elicitation.
func ElicitForm(message string, requestedSchema json.RawMessage) *ElicitRequest {
	return &ElicitRequest{Mode: ElicitModeForm, Message: message, RequestedSchema: requestedSchema}
}

// ElicitURL returns a url-mode elicitation.
func ElicitURL(message, url string) *ElicitRequest {
	return &ElicitRequest{Mode: ElicitModeURL, Message: message, URL: url}
}

// Method implements InputRequest.
func (*ElicitRequest) Method() string { return "elicitation/create" }

func (r *ElicitRequest) missing(caps ClientCapabilities) *ClientCapabilities {
	e := caps.Elicitation
	if r.Mode == ElicitModeURL {
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

// CreateMessageRequest asks the client to sample a language model.
// Sampling is deprecated in 2026-07-28 but still served.
type CreateMessageRequest struct {
	// Messages are the conversation so far.
	Messages []SamplingMessage `json:"messages"`
	// MaxTokens bounds the answer; it must be positive.
	MaxTokens int `json:"maxTokens"`
	// SystemPrompt is the system prompt the server asks for.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers"; anything
	// but "none" needs the client's sampling.context capability.
	IncludeContext string `json:"includeContext,omitempty"`
	// Temperature is the sampling temperature, when the server has a
	// preference.
	Temperature *float64 `json:"temperature,omitempty"`
	// StopSequences end the sampling.
	StopSequences []string `json:"stopSequences,omitempty"`
	// ModelPreferences are hints for choosing a model.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// Metadata is passed to the model provider.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Tools the model may call; they need the client's sampling.tools
	// capability, as does ToolChoice.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice says how the model may use Tools.
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Meta is the request's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content is
// one block or several (tool use and results); it is sent as a single
// object when it holds exactly one.
type SamplingMessage struct {
	// Role is who speaks.
	Role Role `json:"role"`
	// Content is what is said.
	Content []Content `json:"-"`
}

// MarshalJSON writes content as one block or an array.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	return jsonwire.API.Marshal(struct {
		Role    Role `json:"role"`
		Content any  `json:"content"`
	}{m.Role, oneOrMany(m.Content)})
}

// UnmarshalJSON reads content given as one block or an array.
func (m *SamplingMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := decodeOneOrMany(w.Content)
	if err != nil {
		return err
	}
	m.Role, m.Content = w.Role, c
	return nil
}

// ModelPreferences are the server's hints for model selection.
type ModelPreferences struct {
	// Hints name models or families, in order of preference.
	Hints []ModelHint `json:"hints,omitempty"`
	// CostPriority, from 0 to 1, is how much cost matters.
	CostPriority *float64 `json:"costPriority,omitempty"`
	// SpeedPriority, from 0 to 1, is how much speed matters.
	SpeedPriority *float64 `json:"speedPriority,omitempty"`
	// IntelligencePriority, from 0 to 1, is how much capability matters.
	IntelligencePriority *float64 `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model or family.
type ModelHint struct {
	// Name is a model name or a part of one, such as "claude".
	Name string `json:"name,omitempty"`
}

// ToolChoice says how a sampled model may use tools.
type ToolChoice struct {
	// Mode is "auto", "required" or "none".
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

// ListRootsRequest asks the client for its roots. Roots are deprecated
// in 2026-07-28 but still served.
type ListRootsRequest struct {
	// Meta is the request's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// Method implements InputRequest.
func (*ListRootsRequest) Method() string { return "roots/list" }

func (*ListRootsRequest) missing(caps ClientCapabilities) *ClientCapabilities {
	if caps.Roots == nil {
		return &ClientCapabilities{Roots: &RootsCapability{}}
	}
	return nil
}

// DecodeInputRequest decodes the params of a server-to-client request
// (or of an input request) with the given method.
func DecodeInputRequest(method string, params json.RawMessage) (InputRequest, error) {
	var r InputRequest
	switch method {
	case "elicitation/create":
		r = &ElicitRequest{}
	case "sampling/createMessage":
		r = &CreateMessageRequest{}
	case "roots/list":
		r = &ListRootsRequest{}
	default:
		return nil, fmt.Errorf("mcp: unknown input request method %q", method)
	}
	if len(params) > 0 && string(params) != "null" {
		if err := jsonwire.Unmarshal(params, r); err != nil {
			return nil, fmt.Errorf("mcp: %s params: %w", method, err)
		}
	}
	return r, nil
}

// ElicitResult is the client's answer to an elicitation.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content holds the submitted form values when Action is "accept".
	Content map[string]any `json:"content,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
// Content is sent as a single object when it holds exactly one block.
type CreateMessageResult struct {
	// Role is the answer's role, normally assistant.
	Role Role `json:"role"`
	// Content is the answer: one block, or several (tool use).
	Content []Content `json:"-"`
	// Model is the model that answered.
	Model string `json:"model"`
	// StopReason says why sampling stopped, such as "endTurn".
	StopReason string `json:"stopReason,omitempty"`
}

// MarshalJSON writes content as one block or an array.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	type plain CreateMessageResult
	return jsonwire.API.Marshal(struct {
		plain
		Content any `json:"content"`
	}{plain(r), oneOrMany(r.Content)})
}

// UnmarshalJSON reads content given as one block or an array.
func (r *CreateMessageResult) UnmarshalJSON(b []byte) error {
	type plain CreateMessageResult
	var w struct {
		*plain
		Content json.RawMessage `json:"content"`
	}
	w.plain = (*plain)(r)
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := decodeOneOrMany(w.Content)
	if err != nil {
		return err
	}
	r.Content = c
	return nil
}

// ListRootsResult is the client's answer to a roots request.
type ListRootsResult struct {
	// Roots are the client's roots.
	Roots []Root `json:"roots"`
}

// Root is a directory or file the client lets the server work in.
type Root struct {
	// URI is a file:// URI.
	URI string `json:"uri"`
	// Name is a name for people to read.
	Name string `json:"name,omitempty"`
}

// InputRequiredResult is the 2026-07-28 result of a tools/call,
// resources/read or prompts/get that needs client input first: the
// client answers the requests and retries the same call with
// inputResponses and the requestState echoed.
type InputRequiredResult struct {
	Result
	// InputRequests are the requests, by keys of the server's choosing.
	InputRequests map[string]InputRequest `json:"-"`
	// RequestState is opaque state the client echoes on the retry.
	RequestState string `json:"requestState,omitempty"`
}

// wireInputRequest is an input request as the wire carries it.
type wireInputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// MarshalJSON writes each input request as {"method","params"}.
func (r *InputRequiredResult) MarshalJSON() ([]byte, error) {
	type plain InputRequiredResult
	w := struct {
		*plain
		InputRequests map[string]wireInputRequest `json:"inputRequests,omitempty"`
	}{plain: (*plain)(r)}
	if len(r.InputRequests) > 0 {
		w.InputRequests = make(map[string]wireInputRequest, len(r.InputRequests))
		for _, k := range slices.Sorted(maps.Keys(r.InputRequests)) {
			ir := r.InputRequests[k]
			w.InputRequests[k] = wireInputRequest{Method: ir.Method(), Params: ir}
		}
	}
	return jsonwire.API.Marshal(w)
}

// UnmarshalJSON decodes each input request by its method.
func (r *InputRequiredResult) UnmarshalJSON(b []byte) error {
	type plain InputRequiredResult
	var w struct {
		*plain
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	w.plain = (*plain)(r)
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	r.InputRequests = nil
	for k, v := range w.InputRequests {
		ir, err := DecodeInputRequest(v.Method, v.Params)
		if err != nil {
			return fmt.Errorf("mcp: input request %q: %w", k, err)
		}
		if r.InputRequests == nil {
			r.InputRequests = make(map[string]InputRequest, len(w.InputRequests))
		}
		r.InputRequests[k] = ir
	}
	return nil
}
