package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// roundTrip encodes v and decodes the bytes into a new value of v's type.
func roundTrip[T any](t *testing.T, v *T) (*T, string) {
	t.Helper()
	b, err := jsonwire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := jsonwire.Unmarshal(b, &out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return &out, string(b)
}

func TestCallToolResultRoundTrip(t *testing.T) {
	size := int64(3)
	in := &CallToolResult{
		Result: Result{Meta: map[string]any{"k": "v"}},
		Content: []Content{
			Text("hi"),
			&ImageContent{Data: "aGk=", MIMEType: "image/png"},
			&AudioContent{Data: "aGk=", MIMEType: "audio/wav"},
			&ResourceLink{URI: "a://b", Name: "b", Size: &size},
			&EmbeddedResource{Resource: BlobContents("a://c", "application/octet-stream", []byte("hi"))},
		},
		StructuredContent: map[string]any{"n": 1},
		IsError:           true,
	}
	out, wire := roundTrip(t, in)
	if !strings.HasPrefix(wire, `{"_meta":{"k":"v"},"content":[{"type":"text","text":"hi"},{"type":"image"`) {
		t.Fatalf("wire %s", wire)
	}
	if len(out.Content) != 5 || !out.IsError || out.Meta["k"] != "v" {
		t.Fatalf("decoded %+v", out)
	}
	for i, c := range out.Content {
		if reflect.TypeOf(c) != reflect.TypeOf(in.Content[i]) {
			t.Errorf("block %d decoded as %T, sent as %T", i, c, in.Content[i])
		}
	}
	if got := out.Content[4].(*EmbeddedResource).Resource.Blob; got != "aGk=" {
		t.Errorf("blob %q", got)
	}
	if raw, ok := out.StructuredContent.(json.RawMessage); !ok || string(raw) != `{"n":1}` {
		t.Errorf("structuredContent %T %v", out.StructuredContent, out.StructuredContent)
	}
}

func TestUnknownContentTypeIsAnError(t *testing.T) {
	var r CallToolResult
	err := jsonwire.Unmarshal([]byte(`{"content":[{"type":"hologram"}]}`), &r)
	if err == nil || !strings.Contains(err.Error(), `unknown content type "hologram"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestResourceContentsTextOrBlob(t *testing.T) {
	out, wire := roundTrip(t, TextContents("a://b", "text/plain", "x"))
	if wire != `{"uri":"a://b","mimeType":"text/plain","text":"x"}` || out.Text != "x" || out.Blob != "" {
		t.Fatalf("text: %s %+v", wire, out)
	}
	out, wire = roundTrip(t, BlobContents("a://b", "", []byte{1}))
	if wire != `{"uri":"a://b","blob":"AQ=="}` || out.Blob != "AQ==" || out.Text != "" {
		t.Fatalf("blob: %s %+v", wire, out)
	}
}

func TestSamplingContentOneOrMany(t *testing.T) {
	one := &SamplingMessage{Role: RoleUser, Content: []Content{Text("a")}}
	out, wire := roundTrip(t, one)
	if wire != `{"role":"user","content":{"type":"text","text":"a"}}` || len(out.Content) != 1 {
		t.Fatalf("one: %s %+v", wire, out)
	}
	two := &CreateMessageResult{Role: RoleAssistant, Model: "m", Content: []Content{Text("a"), Text("b")}}
	res, wire := roundTrip(t, two)
	if !strings.Contains(wire, `"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]`) || TextOf(res.Content) != "ab" || res.Model != "m" {
		t.Fatalf("two: %s %+v", wire, res)
	}
}

func TestInputRequiredResultRoundTrip(t *testing.T) {
	in := &InputRequiredResult{
		Result:       Result{ResultType: ResultInputRequired},
		RequestState: "st",
		InputRequests: map[string]InputRequest{
			"e": ElicitURL("sign in", "https://example.com"),
			"s": &CreateMessageRequest{MaxTokens: 5, Messages: []SamplingMessage{{Role: RoleUser, Content: []Content{Text("q")}}}},
			"r": &ListRootsRequest{},
		},
	}
	out, wire := roundTrip(t, in)
	if !strings.Contains(wire, `"e":{"method":"elicitation/create","params":{"mode":"url"`) {
		t.Fatalf("wire %s", wire)
	}
	if out.RequestState != "st" || out.ResultType != ResultInputRequired || len(out.InputRequests) != 3 {
		t.Fatalf("decoded %+v", out)
	}
	if e, ok := out.InputRequests["e"].(*ElicitRequest); !ok || e.URL != "https://example.com" {
		t.Errorf("e = %#v", out.InputRequests["e"])
	}
	if s, ok := out.InputRequests["s"].(*CreateMessageRequest); !ok || TextOf(s.Messages[0].Content) != "q" {
		t.Errorf("s = %#v", out.InputRequests["s"])
	}
	if _, err := DecodeInputRequest("tasks/get", nil); err == nil {
		t.Error("an unknown input request method decoded")
	}
}

func TestMissingAndTheMissingCapabilityError(t *testing.T) {
	caps := ClientCapabilities{Elicitation: &ElicitationCapability{}}
	if m := caps.Missing(ElicitForm("m", nil)); m != nil {
		t.Fatalf("an empty elicitation capability serves forms, got %+v", m)
	}
	url := caps.Missing(ElicitURL("m", "https://x"))
	roots := caps.Missing(&ListRootsRequest{})
	tools := caps.Missing(&CreateMessageRequest{ToolChoice: &ToolChoice{Mode: "auto"}})
	if url == nil || roots == nil || tools == nil || tools.Sampling.Tools == nil {
		t.Fatalf("missing: %+v %+v %+v", url, roots, tools)
	}
	e := NewMissingCapabilityError(url, nil, roots, tools)
	b, _ := jsonwire.Marshal(e.Data)
	if e.Code != CodeMissingRequiredClientCapability || string(b) != `{"requiredCapabilities":{"elicitation":{"url":{}},"sampling":{"tools":{}},"roots":{}}}` {
		t.Fatalf("%d %s", e.Code, b)
	}
}
