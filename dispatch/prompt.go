package dispatch

// Registering a prompt and its handler.

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/mcp"
)

// PromptHandler renders a prompt. Arguments have been checked: every
// value is a string and every required argument is present. A returned
// *jsonrpc.Error becomes that error, any other error -32603 (logged, not
// sent), and a panic -32603 for this request only. Return an
// *[InputRequired] to ask the client for input first.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*mcp.GetPromptResult, error)

// GetPromptRequest is what a PromptHandler receives.
type GetPromptRequest struct {
	// Name is the prompt's name.
	Name string
	// Arguments are the client's arguments, all strings.
	Arguments map[string]string
	// Info describes the request.
	Info *RequestInfo
	// Input carries the client's answers on a retry after input_required;
	// nil otherwise.
	Input *Input
}

type promptEntry struct {
	prompt   mcp.Prompt
	handler  PromptHandler
	complete map[string]CompletionHandler // by argument name
	policy   *componentPolicy
}

// WithPrompt registers a prompt. Its name must be non-empty and unique,
// and its argument names non-empty and distinct; [WithCompletion] may
// name only its arguments; a [PolicyOption] sets its policies and
// middleware.
func WithPrompt(p mcp.Prompt, h PromptHandler, opts ...ComponentOption) Option {
	return componentOption(func(b *builder) error {
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
		cfg, err := componentOptions("prompt", p.Name, opts)
		if err != nil {
			return err
		}
		for name := range cfg.complete {
			if !seen[name] {
				return fmt.Errorf("dispatch: prompt %q completes unknown argument %q", p.Name, name)
			}
		}
		b.prompts[p.Name] = &promptEntry{prompt: p, handler: h, complete: cfg.complete, policy: &componentPolicy{own: cfg.policy}}
		return nil
	})
}
