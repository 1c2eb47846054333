package dispatch

import (
	"context"
	"fmt"
)

// Prompt describes a prompt template listed by prompts/list.
type Prompt struct {
	// Name is unique in the Runtime.
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// PromptArgument is one string argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Required arguments are checked before the handler runs: a missing
	// one is -32602.
	Required bool `json:"required,omitempty"`
	// Complete, when set, suggests values for the argument in
	// completion/complete. It is not sent to clients.
	Complete CompletionHandler `json:"-"`
}

// Role is the speaker of a prompt or sampling message.
type Role string

// The two roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PromptMessage is one message of a rendered prompt. Content may be any
// content block: text, image, audio, embedded resource or resource link.
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// PromptHandler renders a prompt. Arguments have been checked: every
// value is a string and every required argument is present. A returned
// *jsonrpc.Error becomes that error, any other error -32603 (logged, not
// sent), and a panic -32603 for this request only. Return an
// *[InputRequired] to ask the client for input first.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

// GetPromptRequest is what a PromptHandler receives.
type GetPromptRequest struct {
	Name      string
	Arguments map[string]string
	// Info describes the request.
	Info *RequestInfo
	// Input carries the client's answers on a retry after input_required;
	// nil otherwise.
	Input *Input
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string
	Messages    []PromptMessage
	Meta        map[string]any
}

type promptEntry struct {
	prompt  Prompt
	handler PromptHandler
}

// WithPrompt registers a prompt. Its name must be non-empty and unique,
// and its argument names non-empty and distinct.
func WithPrompt(p Prompt, h PromptHandler) Option {
	return func(b *builder) error {
		if p.Name == "" {
			return fmt.Errorf("dispatch: prompt with no name")
		}
		if h == nil {
			return fmt.Errorf("dispatch: prompt %q has no handler", p.Name)
		}
		if _, dup := b.prompts[p.Name]; dup {
			return fmt.Errorf("dispatch: prompt %q registered twice", p.Name)
		}
		seen := map[string]bool{}
		for _, a := range p.Arguments {
			if a.Name == "" || seen[a.Name] {
				return fmt.Errorf("dispatch: prompt %q has an empty or repeated argument name %q", p.Name, a.Name)
			}
			seen[a.Name] = true
		}
		b.prompts[p.Name] = &promptEntry{prompt: p, handler: h}
		return nil
	}
}
