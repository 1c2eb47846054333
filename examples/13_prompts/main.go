// Command 13_prompts serves prompts: templates of messages a client offers
// its user, with string arguments (required ones are checked before the
// handler runs), several messages and roles, and embedded resources.
//
//	go run ./examples/13_prompts          # serves over stdio
//	go run ./examples/13_prompts -check   # exercises it in process
package main

import (
	"context"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
)

func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(dispatch.Implementation{Name: "prompts", Version: "1.0.0"},
		dispatch.WithPrompt(dispatch.Prompt{
			Name:        "commit_message",
			Title:       "Write a commit message",
			Description: "Drafts a commit message for a change.",
			Arguments: []dispatch.PromptArgument{
				{Name: "summary", Description: "What the change does", Required: true},
				{Name: "style", Description: "conventional or plain (default plain)"},
			},
		}, commitMessage),
		dispatch.WithPrompt(dispatch.Prompt{Name: "explain_license", Description: "Explains the project's license."},
			func(_ context.Context, _ *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
				// A prompt may embed a resource's contents in a message.
				license := dispatch.TextContents("file:///project/LICENSE", "text/plain", "MIT License ...")
				return &dispatch.GetPromptResult{Messages: []dispatch.PromptMessage{
					{Role: dispatch.RoleUser, Content: dispatch.Text("Explain this license in two sentences.")},
					{Role: dispatch.RoleUser, Content: &dispatch.EmbeddedResource{Resource: license}},
				}}, nil
			}),
	)
}

func commitMessage(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
	style := req.Arguments["style"]
	if style == "" {
		style = "plain"
	}
	if style != "plain" && style != "conventional" {
		return nil, fmt.Errorf("unknown style %q", style) // -32603, logged
	}
	return &dispatch.GetPromptResult{
		Description: "A " + style + " commit message",
		Messages: []dispatch.PromptMessage{
			{Role: dispatch.RoleUser, Content: dispatch.Text("Write a " + style + " commit message for: " + req.Arguments["summary"])},
			{Role: dispatch.RoleAssistant, Content: dispatch.Text("Here is a draft:")},
		},
	}, nil
}

func main() { excheck.Main(newRuntime, checks) }
