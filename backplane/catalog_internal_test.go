package backplane

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// fakeEntry is a bucket entry as a watcher delivers it.
type fakeEntry struct {
	key string
	val []byte
	rev uint64
	op  jetstream.KeyValueOp
}

func (e fakeEntry) Bucket() string                  { return "test-catalog" }
func (e fakeEntry) Key() string                     { return e.key }
func (e fakeEntry) Value() []byte                   { return e.val }
func (e fakeEntry) Revision() uint64                { return e.rev }
func (e fakeEntry) Created() time.Time              { return time.Time{} }
func (e fakeEntry) Delta() uint64                   { return 0 }
func (e fakeEntry) Operation() jetstream.KeyValueOp { return e.op }

func put(t *testing.T, c Component, present bool, rev uint64) fakeEntry {
	t.Helper()
	k, err := c.key()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := json.Marshal(entry{Present: present})
	return fakeEntry{key: k, val: v, rev: rev, op: jetstream.KeyValuePut}
}

// TestCatalogApplyInOrderAtMostOnce hands apply entries as a watcher may
// deliver them again (a consumer that restarts): a revision at or below
// the last applied changes nothing, not even the version, and each
// change reaches the hub once.
func TestCatalogApplyInOrderAtMostOnce(t *testing.T) {
	hb := hub.New(hub.Options{})
	wake := make(chan struct{}, 1)
	l := hb.Attach(mcp.SubscriptionFilter{ToolsListChanged: true}, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer l.Close()
	var defs Definitions
	defs.DefineTool(mcp.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("a"), nil
		})
	c := &Catalog{reg: hub.NewRegistry(hb), defs: defs.m, log: slog.New(slog.DiscardHandler),
		present: map[Component]bool{}, applied: make(chan struct{})}

	c.apply(put(t, Tool("a"), true, 3))
	c.apply(put(t, Tool("a"), false, 2)) // older: dropped
	c.apply(put(t, Tool("a"), true, 3))  // again: dropped
	c.apply(fakeEntry{key: "tool.%%%", rev: 4, op: jetstream.KeyValuePut})
	if st := c.Stats(); st.Version != 4 || st.Added != 1 || st.Removed != 0 || st.Invalid != 1 {
		t.Fatalf("stats %+v, want version 4, one addition, one invalid entry", st)
	}
	c.apply(fakeEntry{key: mustKey(t, Tool("a")), rev: 5, op: jetstream.KeyValueDelete})
	if st := c.Stats(); st.Version != 5 || st.Removed != 1 {
		t.Fatalf("after a delete marker: %+v", st)
	}
	var heard int
	for {
		if _, err := l.Next(); err != nil {
			break
		}
		heard++
	}
	if heard != 2 {
		t.Fatalf("the hb heard %d tool-list changes, want 2 (one addition, one removal)", heard)
	}
}

func mustKey(t *testing.T, c Component) string {
	t.Helper()
	k, err := c.key()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestComponentKeys: a name with any character round-trips through its
// key, and a key of no kind, or with no name, is refused.
func TestComponentKeys(t *testing.T) {
	for _, c := range []Component{Tool("a.b/c d"), Prompt("ü"), Resource("file:///x?y=1"), ResourceTemplate("file:///{path}")} {
		k, err := c.key()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := parseKey(k); err != nil || back != c {
			t.Errorf("%v: key %q parses as %v, %v", c, k, back, err)
		}
	}
	for _, k := range []string{"tool", "tool.", "widget.YQ", "tool.!!"} {
		if _, err := parseKey(k); err == nil {
			t.Errorf("parseKey(%q) accepted it", k)
		}
	}
	if _, err := Tool("").key(); err == nil {
		t.Error("an empty name has a key")
	}
}
