package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// completionValues are what completion/complete suggests for arg1 of
// test_prompt_with_arguments, filtered by the typed prefix.
var completionValues = []string{"paris", "park", "party", "python"}

func prompts() []dispatch.Option {
	user := func(c mcp.Content) mcp.PromptMessage {
		return mcp.PromptMessage{Role: mcp.RoleUser, Content: c}
	}
	messages := func(m ...mcp.PromptMessage) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Messages: m}
	}
	return []dispatch.Option{
		dispatch.WithPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(user(mcp.Text("This is a simple prompt for testing."))), nil
			}),
		dispatch.WithPrompt(mcp.Prompt{
			Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments.",
			Arguments: []mcp.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return messages(user(mcp.Text("Prompt with arguments: arg1='" + req.Arguments["arg1"] + "', arg2='" + req.Arguments["arg2"] + "'"))), nil
		}, dispatch.WithCompletion("arg1", completeArg1)),
		dispatch.WithPrompt(mcp.Prompt{
			Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.",
			Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			uri := req.Arguments["resourceUri"]
			return messages(
				user(&mcp.EmbeddedResource{Resource: mcp.TextContents(uri, "text/plain", "Embedded resource content for testing.")}),
				user(mcp.Text("Please process the embedded resource above.")),
			), nil
		}),
		dispatch.WithPrompt(mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt that includes an image."},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(user(imageBlock()), user(mcp.Text("Please analyze the image above."))), nil
			}),
		dispatch.WithPrompt(mcp.Prompt{
			Name: "test_input_required_result_prompt", Description: "Asks the user for context (key user_context) before rendering.",
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if answer, ok := req.Input.Elicitation("user_context"); ok && answer.Action == "accept" {
				if context, ok := answer.Content["context"].(string); ok {
					return messages(user(mcp.Text("Use this context: " + context))), nil
				}
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"user_context": mcp.ElicitForm("What context should the prompt use?",
					json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)),
			}}
		}),
	}
}

func completeArg1(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
	out := []string{}
	for _, v := range completionValues {
		if strings.HasPrefix(v, req.Value) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out}, nil
}
