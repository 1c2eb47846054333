package dispatch

import "context"

// MaxCompletionValues is the most values one completion result carries.
const MaxCompletionValues = 100

// Completion reference types.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompletionHandler suggests values for one prompt argument or template
// variable. Returning more than [MaxCompletionValues] values is allowed:
// the Runtime sends the first 100 and sets HasMore. An error behaves as in
// a PromptHandler.
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*Completion, error)

// CompleteRequest is what a CompletionHandler receives.
type CompleteRequest struct {
	// Ref is RefPrompt or RefResource.
	Ref string
	// Name is the prompt's name (RefPrompt) or the template's URI
	// template (RefResource).
	Name string
	// Argument is the argument or variable being completed, and Value
	// what the user has typed so far.
	Argument string
	Value    string
	// Context holds arguments the user has already resolved.
	Context map[string]string
	// Info describes the request.
	Info *RequestInfo
}

// Completion is a list of suggestions.
type Completion struct {
	Values []string `json:"values"`
	// Total is the number of suggestions available, when known (0 leaves
	// it out).
	Total   int  `json:"total,omitempty"`
	HasMore bool `json:"hasMore,omitempty"`
}

// capped returns c with at most MaxCompletionValues values, noting the cut.
func (c *Completion) capped() *Completion {
	if c == nil {
		return &Completion{Values: []string{}}
	}
	out := *c
	if out.Values == nil {
		out.Values = []string{}
	}
	if len(out.Values) > MaxCompletionValues {
		if out.Total < len(out.Values) {
			out.Total = len(out.Values)
		}
		out.Values = out.Values[:MaxCompletionValues]
		out.HasMore = true
	}
	return &out
}
