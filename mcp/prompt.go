// Prompts, their arguments and messages.

package mcp

import (
	"encoding/json"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// Prompt describes a prompt template listed by prompts/list.
type Prompt struct {
	// Name identifies the prompt.
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Description says what the prompt is for.
	Description string `json:"description,omitempty"`
	// Arguments are the prompt's arguments.
	Arguments []PromptArgument `json:"arguments,omitempty"`
	// Icons are images a client may show for the prompt.
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the prompt's _meta object.
	Meta map[string]any `json:"_meta,omitempty"`
}

// PromptArgument is one string argument of a prompt.
type PromptArgument struct {
	// Name identifies the argument.
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Description says what the argument is for.
	Description string `json:"description,omitempty"`
	// Required arguments must be given to prompts/get.
	Required bool `json:"required,omitempty"`
}

// Role is the speaker of a prompt or sampling message.
type Role string

// The two roles.
const (
	// RoleUser is the user's side of the conversation.
	RoleUser Role = "user"
	// RoleAssistant is the model's side of the conversation.
	RoleAssistant Role = "assistant"
)

// PromptMessage is one message of a rendered prompt. Content may be any
// content block.
type PromptMessage struct {
	// Role is who speaks.
	Role Role `json:"role"`
	// Content is what is said.
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the message's content block by its type.
func (m *PromptMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := jsonwire.Unmarshal(b, &w); err != nil {
		return err
	}
	m.Role, m.Content = w.Role, nil
	if len(w.Content) > 0 && string(w.Content) != "null" {
		c, err := decodeContent(w.Content)
		if err != nil {
			return err
		}
		m.Content = c
	}
	return nil
}
