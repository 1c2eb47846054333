package dispatch

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// TestAppendedResultsMatchMarshal checks that the appending encoder of
// tool results writes exactly the bytes the general encoder writes, for
// every kind of content and every optional member.
func TestAppendedResultsMatchMarshal(t *testing.T) {
	prio := 0.5
	size := int64(42)
	infoMeta, err := jsonwire.Marshal(map[string]any{mcp.MetaServerInfo: mcp.Implementation{Name: "t", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	userMeta, err := jsonwire.Marshal(map[string]any{mcp.MetaServerInfo: mcp.Implementation{Name: "t", Version: "1"}, "x/é": []any{1, "ü"}})
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string][]mcp.Content{
		"text":        {mcp.Text("The quick brown fox jumps over the lazy dog, 0123456789.")},
		"escapes":     {mcp.Text("quote \" backslash \\ newline \n tab \t cr \r nul \x00 del \x7f <&> \u2028")},
		"nonascii":    {mcp.Text("héllo wörld 日本語 😀")},
		"invalidutf8": {mcp.Text("bad \xff\xfe bytes \xe2\x82")},
		"empty":       {},
		"nil":         nil,
		"nilblock":    {nil, (*mcp.TextContent)(nil)},
		"annotated": {&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Audience: []string{"user"}, Priority: &prio}},
			&mcp.TextContent{Text: "m", Meta: map[string]any{"k": "v", "a": 1}}, &mcp.TextContent{Text: "e", Meta: map[string]any{}}},
		"mixed": {mcp.Text("one"), &mcp.ImageContent{Data: "aGk=", MIMEType: "image/png"}, &mcp.AudioContent{Data: "aGk=", MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///a", Name: "a", Size: &size, Icons: []mcp.Icon{{Src: "https://x/i.png"}}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", Text: "b"}}, mcp.Text("two")},
	}
	structured := map[string]any{
		"none":   nil,
		"map":    map[string]any{"z": 1, "a": "ü", "n": json.Number("1.50")},
		"raw":    json.RawMessage("{\n  \"indented\": true,\n  \"list\": [1, 2]\n}"),
		"array":  []int{1, 2, 3},
		"string": "日本",
	}
	for cname, content := range contents {
		for sname, sc := range structured {
			for _, isErr := range []bool{false, true} {
				for mname, meta := range map[string][]byte{"info": infoMeta, "user": userMeta, "nil": nil} {
					name := cname + "/" + sname + "/" + mname
					w26 := &wire26CallTool{ResultType: resultComplete, Content: content, StructuredContent: sc, IsError: isErr, Meta: meta}
					compareEncodings(t, "2026/"+name, w26)
				}
				for mname, meta := range map[string]map[string]any{"none": nil, "empty": {}, "user": {"b": 2, "a": "ü"}} {
					name := cname + "/" + sname + "/" + mname
					w25 := &wire25CallTool{Content: content, StructuredContent: sc, IsError: isErr, Meta: meta}
					compareEncodings(t, "2025/"+name, w25)
				}
			}
		}
	}
}

func compareEncodings(t *testing.T, name string, wire resultAppender) {
	t.Helper()
	id := jsonrpc.StringID("req-ü")
	got, err := encodeResultFrame(id, wire)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	body, err := jsonwire.Marshal(wire)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := rpcwire.AppendResult(nil, id, body)
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", name, got, want)
	}
}
