package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func elicitAda(modes ...string) client.Option {
	return client.WithElicitation(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "asked": req.Message}}, nil
	}, modes...)
}

// TestInputRequiredAnswered: the handlers answer each input request, and
// the retry carries a new id, the responses by key and the echoed state.
func TestInputRequiredAnswered(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		var responses map[string]json.RawMessage
		if !param(m, "inputResponses", &responses) {
			f.reply(m.ID, map[string]any{"resultType": "input_required", "requestState": "s1", "inputRequests": map[string]any{
				"who":   map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "Name?", "requestedSchema": map[string]any{"type": "object"}}},
				"where": map[string]any{"method": "roots/list", "params": map[string]any{}},
			}})
			return
		}
		var state string
		param(m, "requestState", &state)
		f.reply(m.ID, complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": state + " " + string(responses["who"]) + " " + string(responses["where"])}}}))
	}))
	c := connect(t, tr, elicitAda(mcp.ElicitModeForm, mcp.ElicitModeURL), client.WithRoots(func(context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///w"}}, nil
	}))
	res, err := c.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `s1 {"action":"accept","content":{"asked":"Name?","name":"Ada"}} {"roots":[{"uri":"file:///w"}]}`
	if got := textOf(t, res); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	calls := f.received("tools/call")
	if len(calls) != 2 || calls[0].ID == calls[1].ID {
		t.Fatalf("%d calls; the retry needs a new id", len(calls))
	}
	// Every request declares the capabilities the handlers give.
	var caps map[string]map[string]any
	if err := json.Unmarshal(metaOf(calls[0])["io.modelcontextprotocol/clientCapabilities"], &caps); err != nil {
		t.Fatal(err)
	}
	if _, ok := caps["elicitation"]["url"]; !ok || caps["roots"] == nil || caps["sampling"] != nil {
		t.Fatalf("capabilities %v", caps)
	}
}

func TestInputRoundsBounded(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		f.reply(m.ID, map[string]any{"resultType": "input_required", "inputRequests": map[string]any{
			"again": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "More?"}},
		}})
	}))
	c := connect(t, tr, elicitAda(mcp.ElicitModeForm, mcp.ElicitModeURL), client.WithLimits(client.Limits{MaxInputRounds: 3}))
	_, err := c.CallTool(context.Background(), "loop", nil)
	if !errors.Is(err, client.ErrTooManyInputRounds) {
		t.Fatalf("want ErrTooManyInputRounds, got %v", err)
	}
	if n := len(f.received("tools/call")); n != 4 {
		t.Fatalf("%d calls, want 4 (the first and 3 retries)", n)
	}
}

// TestInputRequiredWithoutHandler: a request no handler can answer comes
// back to the application, which may answer it by hand.
func TestInputRequiredWithoutHandler(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		var responses map[string]json.RawMessage
		if !param(m, "inputResponses", &responses) {
			f.reply(m.ID, map[string]any{"resultType": "input_required", "requestState": "st", "inputRequests": map[string]any{
				"model": map[string]any{"method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 5}},
			}})
			return
		}
		var state string
		param(m, "requestState", &state)
		f.reply(m.ID, complete(map[string]any{"contents": []any{map[string]any{"uri": "u:x", "text": state + string(responses["model"])}}}))
	}))
	c := connect(t, tr)
	_, err := c.ReadResource(context.Background(), "u:x")
	var ire *client.InputRequiredError
	if !errors.As(err, &ire) {
		t.Fatalf("want *InputRequiredError, got %v", err)
	}
	if ire.RequestState != "st" || len(ire.Missing) != 1 || ire.Missing[0] != "sampling/createMessage" || ire.Requests["model"].Method() != "sampling/createMessage" {
		t.Fatalf("%+v", ire)
	}
	res, err := c.ReadResource(context.Background(), "u:x", client.WithInputResponses(map[string]any{"model": map[string]any{"role": "assistant"}}, ire.RequestState))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; got != `st{"role":"assistant"}` {
		t.Fatalf("got %s", got)
	}
}

// TestInputRequiredStateOnly: a result with only requestState asks for a
// plain retry.
func TestInputRequiredStateOnly(t *testing.T) {
	f, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		var state string
		if !param(m, "requestState", &state) {
			f.reply(m.ID, map[string]any{"resultType": "input_required", "requestState": "later"})
			return
		}
		f.reply(m.ID, complete(map[string]any{"description": state, "messages": []any{}}))
	}))
	c := connect(t, tr)
	res, err := c.GetPrompt(context.Background(), "p", map[string]string{"a": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Description != "later" || len(f.received("prompts/get")) != 2 {
		t.Fatalf("%+v", res)
	}
}

func TestUnexpectedResultType(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		if m.Method == "tools/list" {
			f.reply(m.ID, map[string]any{"resultType": "input_required", "requestState": "x"})
			return
		}
		f.reply(m.ID, map[string]any{"resultType": "task", "task": map[string]any{}})
	}))
	c := connect(t, tr)
	if _, err := c.CallTool(context.Background(), "t", nil); !errors.Is(err, client.ErrUnexpectedResult) {
		t.Fatalf("resultType task: %v", err)
	}
	if _, err := c.ListTools(context.Background()); !errors.Is(err, client.ErrUnexpectedResult) {
		t.Fatalf("tools/list asking for input: %v", err)
	}
}
