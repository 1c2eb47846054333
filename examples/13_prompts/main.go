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
	"github.com/snodo-go/snodo/mcp"
)

func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "prompts", Version: "1.0.0"},
		dispatch.WithPrompt(mcp.Prompt{
			Name:        "commit_message",
			Title:       "Write a commit message",
			Description: "Drafts a commit message for a change.",
			Arguments: []mcp.PromptArgument{
				{Name: "summary", Description: "What the change does", Required: true},
				{Name: "style", Description: "conventional or plain (default plain)"},
			},
		}, commitMessage),
		dispatch.WithPrompt(mcp.Prompt{Name: "explain_license", Description: "Explains the project's license."},
			func(_ context.Context, _ *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				// A prompt may embed a resource's contents in a message.
				license := mcp.TextContents("file:///project/LICENSE", "text/plain", "MIT License ...")
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Text("Explain this license in two sentences.")},
					{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: license}},
				}}, nil
			}),
	)
}

func commitMessage(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
	style := req.Arguments["style"]
	if style == "" {
		style = "plain"
	}
	if style != "plain" && style != "conventional" {
		return nil, fmt.Errorf("unknown style %q", style) // -32603, logged
	}
	return &mcp.GetPromptResult{
		Description: "A " + style + " commit message",
		Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.Text("Write a " + style + " commit message for: " + req.Arguments["summary"])},
			{Role: mcp.RoleAssistant, Content: mcp.Text("Here is a draft:")},
		},
	}, nil
}

func main() { excheck.Main(newRuntime, checks) }
