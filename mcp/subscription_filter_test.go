package mcp_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

func TestSubscriptionFilterCarriesExtensionMembers(t *testing.T) {
	f := mcp.SubscriptionFilter{ToolsListChanged: true, Keys: map[string][]string{
		mcp.FilterTaskIDs: {"T1", "T2"}, "empty": nil, "resourceSubscriptions": {"not a core member's place"},
	}}
	for name, marshal := range map[string]func(any) ([]byte, error){"encoding/json": json.Marshal, "jsonwire": jsonwire.Marshal} {
		b, err := marshal(f)
		if err != nil || string(b) != `{"toolsListChanged":true,"taskIds":["T1","T2"]}` {
			t.Fatalf("%s: %s %v", name, b, err)
		}
	}
	if b, _ := json.Marshal(mcp.SubscriptionFilter{Keys: map[string][]string{"taskIds": {"T"}}}); string(b) != `{"taskIds":["T"]}` {
		t.Fatalf("keys alone: %s", b)
	}

	var got mcp.SubscriptionFilter
	in := `{"resourceSubscriptions":["file:///a"],"taskIds":["T1"],"jobIds":["J"],"odd":3,"mixed":["a",1],"none":[]}`
	if err := json.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///a"}, Keys: map[string][]string{"taskIds": {"T1"}, "jobIds": {"J"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	var viaAPI mcp.SubscriptionFilter
	if err := jsonwire.Unmarshal([]byte(in), &viaAPI); err != nil || !reflect.DeepEqual(viaAPI, want) {
		t.Fatalf("decoded with jsonrpc: %+v %v", viaAPI, err)
	}
}
