// Completion handlers and their registration on prompts and templates.

package dispatch

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/mcp"
)

// maxCompletionValues is the most values one completion result carries.
const maxCompletionValues = 100

// CompletionHandler suggests values for one prompt argument or template
// variable. Returning more than 100 values is allowed: the Runtime sends
// the first 100 and sets HasMore. An error behaves as in a
// [PromptHandler].
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*mcp.Completion, error)

// CompleteRequest is what a CompletionHandler receives.
type CompleteRequest struct {
	// Ref is mcp.RefPrompt or mcp.RefResource.
	Ref string
	// Name is the prompt's name (mcp.RefPrompt) or the template's URI
	// template (mcp.RefResource).
	Name string
	// Argument is the argument or variable being completed.
	Argument string
	// Value is what the user has typed so far.
	Value string
	// Context holds arguments the user has already resolved.
	Context map[string]string
	// Info describes the request.
	Info *RequestInfo
}

// ComponentOption adjusts one component as it is registered: a
// [PolicyOption] for any tool, resource, template or prompt, and
// [WithCompletion] for prompts and templates.
type ComponentOption interface {
	applyComponent(*componentConfig) error
}

// componentConfig is what ComponentOptions collect for one component.
type componentConfig struct {
	complete map[string]CompletionHandler // by argument or variable name
	policy   *policyConfig                // nil: no policy of its own
}

type completionOption struct {
	name string
	h    CompletionHandler
}

func (o completionOption) applyComponent(c *componentConfig) error {
	if o.name == "" {
		return errors.New("a completion needs an argument or variable name")
	}
	if o.h == nil {
		return fmt.Errorf("nil completion handler for %q", o.name)
	}
	if _, dup := c.complete[o.name]; dup {
		return fmt.Errorf("%q is completed twice", o.name)
	}
	if c.complete == nil {
		c.complete = map[string]CompletionHandler{}
	}
	c.complete[o.name] = o.h
	return nil
}

// WithCompletion has h suggest values for the prompt argument or template
// variable name in completion/complete. The name must be one of the
// component's arguments or variables; registering fails otherwise.
func WithCompletion(name string, h CompletionHandler) ComponentOption {
	return completionOption{name: name, h: h}
}

// componentOptions applies opts; kind and id name the component in errors.
func componentOptions(kind, id string, opts []ComponentOption) (componentConfig, error) {
	var c componentConfig
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("dispatch: %s %q: nil option", kind, id)
		}
		if err := o.applyComponent(&c); err != nil {
			return c, fmt.Errorf("dispatch: %s %q: %w", kind, id, err)
		}
	}
	return c, nil
}

// cappedCompletion returns c with at most maxCompletionValues values,
// noting the cut.
func cappedCompletion(c *mcp.Completion) *mcp.Completion {
	if c == nil {
		return &mcp.Completion{Values: []string{}}
	}
	out := *c
	if out.Values == nil {
		out.Values = []string{}
	}
	if len(out.Values) > maxCompletionValues {
		if out.Total < len(out.Values) {
			out.Total = len(out.Values)
		}
		out.Values = out.Values[:maxCompletionValues]
		out.HasMore = true
	}
	return &out
}
