// Command 20_mrtr_elicitation asks the user for input in the middle of a
// request, the 2026-07-28 way: a handler returns *dispatch.InputRequired
// (a form or URL elicitation, plus application state), the client answers
// the user's way and retries the same request with inputResponses and the
// requestState, and the handler completes. The state is sealed with
// HMAC-SHA256 and bound to the method, the params, the principal and an
// expiry: the client carries it but cannot read or alter it. A tool, a
// resource and a prompt each use it here; a client that lacks the
// elicitation capability gets -32021 instead.
//
//	go run ./examples/20_mrtr_elicitation          # serves over stdio
//	go run ./examples/20_mrtr_elicitation -check   # plays the client in process
package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
)

// confirmSchema is the form the user fills in to confirm a deletion.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Delete it?"}},"required":["confirm"]}`)

func newRuntime(keys ...[]byte) (*dispatch.Runtime, error) {
	opts := []dispatch.Option{
		// Deleting asks for confirmation through a form.
		dispatch.WithTool(mcp.Tool{
			Name:        "delete_file",
			Description: "Deletes a file after the user confirms.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		}, deleteFile),
		// A private document needs the user to sign in on a web page
		// first: a URL elicitation.
		dispatch.WithResource(mcp.Resource{URI: "vault://report", Name: "report"},
			func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				if ans, ok := req.Input.Elicitation("sign_in"); ok && ans.Action == "accept" {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "Q3 report")}}, nil
				}
				return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
					"sign_in": mcp.ElicitURL("Sign in to open the report.", "https://vault.example/sign-in?session=42"),
				}}
			}),
		// A prompt asks which tone to use when the client did not say.
		dispatch.WithPrompt(mcp.Prompt{Name: "reply", Arguments: []mcp.PromptArgument{{Name: "tone"}}},
			func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
				tone := req.Arguments["tone"]
				if ans, ok := req.Input.Elicitation("tone"); ok && ans.Action == "accept" {
					tone, _ = ans.Content["tone"].(string)
				}
				if tone == "" {
					return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
						"tone": mcp.ElicitForm("Which tone?", json.RawMessage(`{"type":"object","properties":{"tone":{"type":"string","enum":["formal","friendly"]}},"required":["tone"]}`)),
					}}
				}
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("Reply in a " + tone + " tone.")}}}, nil
			}),
	}
	if len(keys) > 0 {
		// Several server instances share a key ring, so a retry may land
		// on any of them; the first key seals, all of them open.
		opts = append(opts, dispatch.WithRequestStateKeys(keys...))
	}
	return dispatch.New(mcp.Implementation{Name: "elicitation", Version: "1.0.0"}, opts...)
}

func deleteFile(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	ans, ok := req.Input.Elicitation("confirm")
	if !ok {
		// First round: ask, and carry what we looked up so far (sealed).
		return nil, &dispatch.InputRequired{
			Requests: map[string]mcp.InputRequest{"confirm": mcp.ElicitForm("Delete "+args.Path+"?", confirmSchema)},
			State:    []byte("size=4096"),
		}
	}
	state, _ := req.Input.State()
	if ans.Action != "accept" || ans.Content["confirm"] != true {
		return mcp.TextResult("kept " + args.Path), nil
	}
	return mcp.TextResult(fmt.Sprintf("deleted %s (%s)", args.Path, state)), nil
}

func main() { excheck.Main(newServer, checks) }

// newServer is newRuntime with a fresh random requestState key.
func newServer() (*dispatch.Runtime, error) { return newRuntime() }
