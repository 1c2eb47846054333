package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// send runs one 2026-07-28 request through rt, checks the response
// against the official schema and returns its result (or error) object.
func send(rt *dispatch.Runtime, id int, method string, params map[string]any) map[string]any {
	msg, err := jsonrpc.Decode(testkit.Request(id, method, params))
	if err != nil {
		panic(err)
	}
	frame := rt.Dispatch(context.Background(), &dispatch.Request{Message: msg}).Frame
	if err := testkit.ValidateFrame(testfixture.Version, frame, method); err != nil {
		panic(err)
	}
	var resp struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(frame, &resp); err != nil {
		panic(err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	return resp.Result
}

// A typed tool: the input and output schemas come from the Go types, the
// arguments are validated before the handler runs, and the result carries
// structuredContent plus the same JSON as text.
func ExampleWithTypedTool() {
	type addIn struct {
		A int `json:"a" jsonschema:"the first addend"`
		B int `json:"b" jsonschema:"the second addend"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "calc", Version: "1.0.0"},
		dispatch.WithTypedTool(mcp.Tool{Name: "add", Description: "Add two integers"},
			func(_ context.Context, in addIn) (addOut, error) {
				return addOut{Sum: in.A + in.B}, nil
			}))
	if err != nil {
		panic(err)
	}
	tool := send(rt, 1, "tools/list", nil)["tools"].([]any)[0].(map[string]any)
	schema, _ := json.Marshal(tool["inputSchema"])
	fmt.Println(string(schema))

	res := send(rt, 2, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 3}})
	fmt.Println(res["structuredContent"], res["content"].([]any)[0].(map[string]any)["text"])

	res = send(rt, 3, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": "two", "b": 3}})
	fmt.Println(res["isError"], res["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// {"additionalProperties":false,"properties":{"a":{"description":"the first addend","type":"integer"},"b":{"description":"the second addend","type":"integer"}},"required":["a","b"],"type":"object"}
	// map[sum:5] {"sum":5}
	// true arguments.a: expected integer
}

// A resource template: URIs matching the RFC 6570 template are served by
// one handler, which gets the template's variables. An unknown URI is
// -32602 with the URI in data.
func ExampleWithResourceTemplate() {
	users := map[string]string{"ada": "Ada Lovelace", "alan": "Alan Turing"}
	rt, err := dispatch.New(mcp.Implementation{Name: "directory", Version: "1.0.0"},
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{
			URITemplate: "users://{login}/profile", Name: "profile", MIMEType: "application/json",
		}, func(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name, ok := users[req.Vars.Get("login")]
			if !ok {
				return nil, dispatch.ErrResourceNotFound
			}
			c, err := mcp.JSONContents(req.URI, map[string]string{"name": name})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, err
		}))
	if err != nil {
		panic(err)
	}
	res := send(rt, 1, "resources/read", map[string]any{"uri": "users://ada/profile"})
	fmt.Println(res["contents"].([]any)[0].(map[string]any)["text"])

	e := send(rt, 2, "resources/read", map[string]any{"uri": "users://bob/profile"})
	fmt.Println(e["code"], e["message"], e["data"])
	// Output:
	// {"name":"Ada Lovelace"}
	// -32602 Resource not found map[uri:users://bob/profile]
}

// A prompt whose argument completes: declaring a completion handler is
// what advertises the completions capability.
func ExampleWithPrompt() {
	languages := []string{"go", "gleam", "haskell", "python"}
	rt, err := dispatch.New(mcp.Implementation{Name: "reviewer", Version: "1.0.0"},
		dispatch.WithPrompt(mcp.Prompt{
			Name:        "code_review",
			Description: "Review code in a language",
			Arguments:   []mcp.PromptArgument{{Name: "language", Required: true}},
		}, func(_ context.Context, req *dispatch.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("Review this " + req.Arguments["language"] + " code.")},
			}}, nil
		}, dispatch.WithCompletion("language", func(_ context.Context, req *dispatch.CompleteRequest) (*mcp.Completion, error) {
			var out []string
			for _, l := range languages {
				if strings.HasPrefix(l, req.Value) {
					out = append(out, l)
				}
			}
			return &mcp.Completion{Values: out}, nil
		})))
	if err != nil {
		panic(err)
	}
	fmt.Println(rt.Capabilities().Completions != nil)
	c := send(rt, 1, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "code_review"},
		"argument": map[string]any{"name": "language", "value": "g"},
	})
	fmt.Println(c["completion"].(map[string]any)["values"])
	p := send(rt, 2, "prompts/get", map[string]any{"name": "code_review", "arguments": map[string]any{"language": "go"}})
	fmt.Println(p["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"])
	// Output:
	// true
	// [go gleam]
	// Review this go code.
}

// A multi round-trip request: the tool asks the user a question through
// the client (elicitation), carrying sealed state through the client; the
// client retries with the answer and the state, and the tool completes.
func ExampleInputRequired() {
	rt, err := dispatch.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"},
		dispatch.WithTool(mcp.Tool{Name: "greet"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Input.Elicitation("user_name"); ok && answer.Action == "accept" {
				greeting, _ := req.Input.State()
				return mcp.TextResult(fmt.Sprintf("%s, %s!", greeting, answer.Content["name"])), nil
			}
			return nil, &dispatch.InputRequired{
				Requests: map[string]mcp.InputRequest{
					"user_name": mcp.ElicitForm("What is your name?",
						json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
				},
				State: []byte("Hello"),
			}
		}))
	if err != nil {
		panic(err)
	}
	caps := map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}

	first := send(rt, 1, "tools/call", map[string]any{"name": "greet", "_meta": caps})
	fmt.Println(first["resultType"])
	ask := first["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	fmt.Println(ask["method"], ask["params"].(map[string]any)["message"])

	retry := send(rt, 2, "tools/call", map[string]any{
		"name": "greet", "_meta": caps,
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
		"requestState":   first["requestState"],
	})
	fmt.Println(retry["resultType"], retry["content"].([]any)[0].(map[string]any)["text"])

	tampered := send(rt, 3, "tools/call", map[string]any{
		"name": "greet", "_meta": caps, "inputResponses": map[string]any{},
		"requestState": first["requestState"].(string) + "-TAMPERED",
	})
	fmt.Println(tampered["code"])
	// Output:
	// input_required
	// elicitation/create What is your name?
	// complete Hello, Ada!
	// -32602
}

// A handler reads the request's W3C trace context: from its _meta when
// that carries a traceparent, otherwise from the HTTP traceparent and
// tracestate headers.
func ExampleRequestInfo_TraceContext() {
	rt, err := dispatch.New(mcp.Implementation{Name: "demo", Version: "1"},
		dispatch.WithTool(mcp.Tool{Name: "trace"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			tc := req.Info.TraceContext()
			return mcp.TextResult(fmt.Sprintf("%s %s header=%t", tc.TraceParent, tc.TraceState, tc.FromHeader)), nil
		}))
	if err != nil {
		panic(err)
	}
	frame := testkit.Request(1, "tools/call", map[string]any{"name": "trace"})
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		panic(err)
	}
	header := testfixture.HTTPHeaders(frame)
	header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	header.Set("Tracestate", "congo=t61rcWkgMzE")
	out := rt.Dispatch(context.Background(), &dispatch.Request{Message: msg, Transport: dispatch.TransportHTTP, Header: header})
	var resp struct {
		Result mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(out.Frame, &resp); err != nil {
		panic(err)
	}
	fmt.Println(resp.Result.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 congo=t61rcWkgMzE header=true
}
