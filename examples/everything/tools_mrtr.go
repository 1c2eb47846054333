package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Multi round-trip tools (2026-07-28): the first round answers
// input_required, the retry carries the client's answers (and the sealed
// state) and completes. The suite hard-codes the key user_name.

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

func askName(message string) *mcp.ElicitRequest { return mcp.ElicitForm(message, nameSchema) }

func confirmRequest() *mcp.ElicitRequest {
	return mcp.ElicitForm("Please confirm", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))
}

func mrtrTools() []dispatch.Option {
	tool := func(name, description string, h dispatch.ToolHandler) dispatch.Option {
		return dispatch.WithTool(mcp.Tool{Name: name, Description: description, InputSchema: noArgs}, h)
	}
	return []dispatch.Option{
		tool("test_input_required_result_elicitation", "Asks for the user's name (key user_name), then greets them.", mrtrElicitation),
		tool("test_input_required_result_sampling", "Asks the client's model a question, then reports the answer.", mrtrSampling),
		tool("test_input_required_result_list_roots", "Asks for the client's roots, then lists them.", mrtrRoots),
		tool("test_input_required_result_request_state", "Asks for a confirmation with requestState; the retry reports state-ok.", mrtrRequestState),
		tool("test_input_required_result_multiple_inputs", "Asks for an elicitation, a sampling and the roots at once.", mrtrMultiple),
		tool("test_input_required_result_multi_round", "Asks two questions in two rounds, each with new requestState.", mrtrMultiRound),
		tool("test_input_required_result_tampered_state", "Asks for a confirmation with integrity-protected requestState.", mrtrTamperedState),
		tool("test_input_required_result_capabilities", "Asks only for what the client's declared capabilities allow.", mrtrCapabilities),
	}
}

func mrtrElicitation(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer, ok := req.Input.Elicitation("user_name"); ok && answer.Action == "accept" {
		if name, ok := answer.Content["name"].(string); ok {
			return mcp.TextResult("Hello, " + name + "!"), nil
		}
	}
	// First round, a wrong key, or an answer without a name: ask (again).
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"user_name": askName("What is your name?")}}
}

func mrtrSampling(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer, ok := req.Input.Sampling("capital_question"); ok {
		return mcp.TextResult("The model answered: " + mcp.TextOf(answer.Content)), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
		"capital_question": samplingRequest("What is the capital of France?", 100),
	}}
}

func mrtrRoots(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer, ok := req.Input.Roots("client_roots"); ok {
		return mcp.TextResult("Client roots: " + rootList(answer)), nil
	}
	return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{"client_roots": &mcp.ListRootsRequest{}}}
}

func rootList(r *mcp.ListRootsResult) string {
	uris := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		uris[i] = root.URI
	}
	if len(uris) == 0 {
		return "(none)"
	}
	return strings.Join(uris, ", ")
}

const requestStateMarker = "request-state-round-1"

func mrtrRequestState(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	state, hasState := req.Input.State()
	if answer, ok := req.Input.Elicitation("confirm"); ok && hasState && string(state) == requestStateMarker {
		return mcp.TextResult(fmt.Sprintf("state-ok: the requestState came back intact (action=%s)", answer.Action)), nil
	}
	return nil, &dispatch.InputRequired{
		Requests: map[string]mcp.InputRequest{"confirm": confirmRequest()},
		State:    []byte(requestStateMarker),
	}
}

func mrtrMultiple(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	name, okName := req.Input.Elicitation("user_name")
	greeting, okGreeting := req.Input.Sampling("greeting")
	roots, okRoots := req.Input.Roots("client_roots")
	if _, hasState := req.Input.State(); hasState && okName && okGreeting && okRoots {
		return mcp.TextResult(fmt.Sprintf("name=%v greeting=%q roots=%s", name.Content["name"], mcp.TextOf(greeting.Content), rootList(roots))), nil
	}
	return nil, &dispatch.InputRequired{
		Requests: map[string]mcp.InputRequest{
			"user_name":    askName("What is your name?"),
			"greeting":     samplingRequest("Generate a greeting", 50),
			"client_roots": &mcp.ListRootsRequest{},
		},
		State: []byte("multiple-inputs"),
	}
}

// mrtrMultiRound keeps the round and the first answer in the sealed
// state, so the second round's state differs from the first's.
func mrtrMultiRound(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	state, _ := req.Input.State()
	if name, ok := strings.CutPrefix(string(state), "round-2:"); ok {
		if answer, ok := req.Input.Elicitation("step2"); ok {
			return mcp.TextResult(fmt.Sprintf("%s likes %v", name, answer.Content["color"])), nil
		}
		return nil, colorQuestion(name)
	}
	if string(state) == "round-1" {
		if answer, ok := req.Input.Elicitation("step1"); ok {
			name, _ := answer.Content["name"].(string)
			return nil, colorQuestion(name)
		}
	}
	return nil, &dispatch.InputRequired{
		Requests: map[string]mcp.InputRequest{"step1": askName("Step 1: What is your name?")},
		State:    []byte("round-1"),
	}
}

func colorQuestion(name string) *dispatch.InputRequired {
	return &dispatch.InputRequired{
		Requests: map[string]mcp.InputRequest{"step2": mcp.ElicitForm("Step 2: What is your favorite color?",
			json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`))},
		State: []byte("round-2:" + name),
	}
}

// mrtrTamperedState relies on the Runtime's HMAC seal: a changed
// requestState never reaches this handler (-32602 at admission).
func mrtrTamperedState(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, ok := req.Input.Elicitation("confirm"); ok {
		if state, ok := req.Input.State(); ok {
			return mcp.TextResult("Verified requestState " + string(state)), nil
		}
	}
	return nil, &dispatch.InputRequired{
		Requests: map[string]mcp.InputRequest{"confirm": confirmRequest()},
		State:    []byte("integrity-protected"),
	}
}

// mrtrCapabilities asks for each kind of input the request's declared
// client capabilities allow, and nothing else.
func mrtrCapabilities(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	if keys := req.Input.Keys(); len(keys) > 0 {
		return mcp.TextResult("Received answers for: " + strings.Join(keys, ", ")), nil
	}
	caps := req.Info.ClientCapabilities
	asks := map[string]mcp.InputRequest{}
	for key, r := range map[string]mcp.InputRequest{
		"user_name":    askName("What is your name?"),
		"greeting":     samplingRequest("Generate a greeting", 50),
		"client_roots": &mcp.ListRootsRequest{},
	} {
		if caps.Missing(r) == nil {
			asks[key] = r
		}
	}
	if len(asks) == 0 {
		return mcp.TextResult("The client declared no capability this tool could use."), nil
	}
	return nil, &dispatch.InputRequired{Requests: asks}
}
