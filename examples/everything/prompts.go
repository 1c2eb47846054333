package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
)

// completionValues are what completion/complete suggests for arg1 of
// test_prompt_with_arguments, filtered by the typed prefix.
var completionValues = []string{"paris", "park", "party", "python"}

func prompts() []dispatch.Option {
	user := func(c dispatch.Content) dispatch.PromptMessage {
		return dispatch.PromptMessage{Role: dispatch.RoleUser, Content: c}
	}
	messages := func(m ...dispatch.PromptMessage) *dispatch.GetPromptResult {
		return &dispatch.GetPromptResult{Messages: m}
	}
	return []dispatch.Option{
		dispatch.WithPrompt(dispatch.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
			func(context.Context, *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
				return messages(user(dispatch.Text("This is a simple prompt for testing."))), nil
			}),
		dispatch.WithPrompt(dispatch.Prompt{
			Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments.",
			Arguments: []dispatch.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true, Complete: completeArg1},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
			return messages(user(dispatch.Text("Prompt with arguments: arg1='" + req.Arguments["arg1"] + "', arg2='" + req.Arguments["arg2"] + "'"))), nil
		}),
		dispatch.WithPrompt(dispatch.Prompt{
			Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.",
			Arguments: []dispatch.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
			uri := req.Arguments["resourceUri"]
			return messages(
				user(&dispatch.EmbeddedResource{Resource: dispatch.TextContents(uri, "text/plain", "Embedded resource content for testing.")}),
				user(dispatch.Text("Please process the embedded resource above.")),
			), nil
		}),
		dispatch.WithPrompt(dispatch.Prompt{Name: "test_prompt_with_image", Description: "A prompt that includes an image."},
			func(context.Context, *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
				return messages(user(imageBlock()), user(dispatch.Text("Please analyze the image above."))), nil
			}),
		dispatch.WithPrompt(dispatch.Prompt{
			Name: "test_input_required_result_prompt", Description: "Asks the user for context (key user_context) before rendering.",
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*dispatch.GetPromptResult, error) {
			if answer, ok := req.Input.Elicitation("user_context"); ok && answer.Action == "accept" {
				if context, ok := answer.Content["context"].(string); ok {
					return messages(user(dispatch.Text("Use this context: " + context))), nil
				}
			}
			return nil, &dispatch.InputRequired{Requests: map[string]dispatch.InputRequest{
				"user_context": dispatch.ElicitForm("What context should the prompt use?",
					json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)),
			}}
		}),
	}
}

func completeArg1(_ context.Context, req *dispatch.CompleteRequest) (*dispatch.Completion, error) {
	out := []string{}
	for _, v := range completionValues {
		if strings.HasPrefix(v, req.Value) {
			out = append(out, v)
		}
	}
	return &dispatch.Completion{Values: out}, nil
}
