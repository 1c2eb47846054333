package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// jsonSchema202012 is the input schema the json-schema-2020-12 scenario
// expects back from tools/list byte for byte in meaning: $schema, $defs
// with an $anchor, composition, conditionals and additionalProperties.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// compactJSON strips the layout of a schema written for people. The
// library sends raw schemas byte for byte, and a raw newline inside a
// frame would break newline-delimited stdio framing (reported against the
// stdio transport; the fixture must not depend on it).
func compactJSON(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err) // the schemas are constants of this file
	}
	return b.Bytes()
}

// logStepDelay spaces the log messages of test_tool_with_logging, as the
// suite expects them to arrive during the call.
const logStepDelay = 50 * time.Millisecond

// protocolTools exercise protocol features: schema preservation, mirrored
// headers, missing client capabilities, log levels, list changes, and
// the server-to-client requests of the initialize-era revisions, which
// the library expresses as input requests.
func protocolTools(reg *hub.Registry) []dispatch.Option {
	return []dispatch.Option{
		dispatch.WithTool(mcp.Tool{
			Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: compactJSON(jsonSchema202012),
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("Arguments accepted: " + string(req.Arguments)), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_x_mcp_header", Description: "Echoes a region that is mirrored into the Mcp-Param-Region header.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"A region name, mirrored into a header.","x-mcp-header":"Region"}},"required":["region"]}`),
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(req.Arguments, &args); err != nil {
				return nil, fmt.Errorf("arguments: %w", err)
			}
			return mcp.TextResult("Region: " + args.Region), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_missing_capability", Description: "Needs the client's sampling capability; without it the call fails with -32021.", InputSchema: noArgs,
		}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Input.Sampling("probe"); ok {
				return mcp.TextResult("Sampling answered: " + mcp.TextOf(answer.Content)), nil
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"probe": samplingRequest("Reply with any word.", 10)}}
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_streaming_elicitation", Description: "Asks for input on its response stream, never with a server-to-client request.", InputSchema: noArgs,
		}, func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Input.Elicitation("confirm"); ok {
				return mcp.TextResult("Elicitation answered: " + answer.Action), nil
			}
			if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: 1, Message: "asking the user"}); err != nil {
				return nil, err
			}
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"confirm": mcp.ElicitForm("Continue?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)),
			}}
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_logging_tool", Description: "Logs at info level; nothing reaches the client unless the request set a log level.", InputSchema: noArgs,
		}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			dispatch.ClientLogger(ctx).Info("test_logging_tool ran")
			return mcp.TextResult("Logged one message at info level."), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_trigger_tool_change", Description: "Adds or removes the tool test_dynamic_tool, which changes the tool list.", InputSchema: noArgs,
		}, toggleTool(reg)),
		dispatch.WithTool(mcp.Tool{
			Name: "test_trigger_prompt_change", Description: "Adds or removes the prompt test_dynamic_prompt, which changes the prompt list.", InputSchema: noArgs,
		}, togglePrompt(reg)),
		dispatch.WithTool(mcp.Tool{
			Name: "test_tool_with_logging", Description: "Sends three info log messages 50 ms apart.", InputSchema: noArgs,
		}, loggingTool),
		dispatch.WithTool(mcp.Tool{
			Name: "test_sampling", Description: "Asks the client's model to answer a prompt.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the model."}},"required":["prompt"]}`),
		}, samplingTool),
		dispatch.WithTool(mcp.Tool{
			Name: "test_elicitation", Description: "Asks the user for a username and an email address.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message shown to the user."}},"required":["message"]}`),
		}, elicitationTool),
		dispatch.WithTool(mcp.Tool{
			Name: "test_elicitation_sep1034_defaults", Description: "Elicits a form whose fields have default values.", InputSchema: noArgs,
		}, formTool("defaults", "Please review your profile.", sep1034Schema)),
		dispatch.WithTool(mcp.Tool{
			Name: "test_elicitation_sep1330_enums", Description: "Elicits a form with every kind of enumeration.", InputSchema: noArgs,
		}, formTool("enums", "Please choose.", sep1330Schema)),
	}
}

// toggleTool changes the tool list: it adds test_dynamic_tool, or
// removes it when present. The registry publishes the change, which
// reaches listen streams and initialize-era sessions.
func toggleTool(reg *hub.Registry) dispatch.ToolHandler {
	return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if reg.RemoveTool("test_dynamic_tool") {
			return mcp.TextResult("Removed test_dynamic_tool."), nil
		}
		err := reg.AddTool(mcp.Tool{Name: "test_dynamic_tool", Description: "Appears and disappears with test_trigger_tool_change.", InputSchema: noArgs},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("dynamic"), nil
			})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("Added test_dynamic_tool."), nil
	}
}

// togglePrompt changes the prompt list the same way.
func togglePrompt(reg *hub.Registry) dispatch.ToolHandler {
	return func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if reg.RemovePrompt("test_dynamic_prompt") {
			return mcp.TextResult("Removed test_dynamic_prompt."), nil
		}
		err := reg.AddPrompt(mcp.Prompt{Name: "test_dynamic_prompt", Description: "Appears and disappears with test_trigger_prompt_change."},
			func(context.Context, *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("dynamic")}}}, nil
			})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("Added test_dynamic_prompt."), nil
	}
}

func loggingTool(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	log := dispatch.ClientLogger(ctx).With(dispatch.LoggerNameKey, "test_tool_with_logging")
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, logStepDelay); err != nil {
				return nil, err
			}
		}
		log.InfoContext(ctx, msg)
	}
	return mcp.TextResult("Logging test completed"), nil
}

func samplingRequest(prompt string, maxTokens int) *mcp.CreateMessageRequest {
	return &mcp.CreateMessageRequest{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.Text(prompt)}}},
		MaxTokens: maxTokens,
	}
}

func samplingTool(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if answer, ok := req.Input.Sampling("sampling"); ok {
		return mcp.TextResult("LLM response: " + mcp.TextOf(answer.Content)), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"sampling": samplingRequest(args.Prompt, 100)}}
}

const contactSchema = `{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address","format":"email"}},"required":["username","email"]}`

func elicitationTool(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if answer, ok := req.Input.Elicitation("elicitation"); ok {
		return mcp.TextResult(describeElicitation(answer)), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
		"elicitation": mcp.ElicitForm(args.Message, json.RawMessage(contactSchema)),
	}}
}

// sep1034Schema gives every primitive field a default (SEP-1034).
const sep1034Schema = `{"type":"object","properties":{
  "name":{"type":"string","description":"User name","default":"John Doe"},
  "age":{"type":"integer","description":"User age","default":30},
  "score":{"type":"number","description":"User score","default":95.5},
  "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
  "verified":{"type":"boolean","description":"Verification status","default":true}
}}`

// sep1330Schema has each enumeration form of SEP-1330: untitled and
// titled single choice, the legacy enumNames form, and untitled and
// titled multiple choice.
const sep1330Schema = `{"type":"object","properties":{
  "untitledSingle":{"type":"string","description":"Untitled single choice","enum":["option1","option2","option3"]},
  "titledSingle":{"type":"string","description":"Titled single choice","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
  "legacyEnum":{"type":"string","description":"Legacy titled enumeration","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
  "untitledMulti":{"type":"array","description":"Untitled multiple choice","items":{"type":"string","enum":["option1","option2","option3"]}},
  "titledMulti":{"type":"array","description":"Titled multiple choice","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}
}}`

// formTool elicits one form and reports the answer.
func formTool(key, message, schema string) dispatch.ToolHandler {
	return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		if answer, ok := req.Input.Elicitation(key); ok {
			return mcp.TextResult(describeElicitation(answer)), nil
		}
		return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
			key: mcp.ElicitForm(message, compactJSON(schema)),
		}}
	}
}

func describeElicitation(r *mcp.ElicitResult) string {
	content, _ := json.Marshal(r.Content)
	return fmt.Sprintf("User response: action=%s, content=%s", r.Action, content)
}
