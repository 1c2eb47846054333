package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// jobsExtension adds the filter member jobIds; a principal may follow the
// jobs whose ids start with its name.
func jobsExtension() dispatch.Extension {
	return dispatch.Extension{
		ID:       "com.example/jobs",
		Versions: []string{mcp.Version20260728},
		Methods: map[string]dispatch.ExtensionHandler{"jobs/get": func(context.Context, *dispatch.ExtensionRequest) (any, error) {
			return map[string]any{}, nil
		}},
		Filters: []dispatch.ExtensionFilter{{
			Member: "jobIds", Method: "notifications/jobs",
			Allow: func(_ context.Context, info *dispatch.RequestInfo, keys []string) []string {
				p, _ := info.Principal.(string)
				var kept []string
				for _, k := range keys {
					if p != "" && strings.HasPrefix(k, p+"-") {
						kept = append(kept, k)
					}
				}
				return kept
			},
		}},
	}
}

var declaresJobs = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
	"extensions": map[string]any{"com.example/jobs": map[string]any{}},
}}

// openKeyed admits a listen for principal with params and opens it.
func openKeyed(t *testing.T, rt *dispatch.Runtime, principal string, params map[string]any, w *waker) *dispatch.Stream {
	t.Helper()
	msg, err := jsonrpc.Decode(testkit.Request("L", dispatch.MethodListen, params))
	if err != nil {
		t.Fatal(err)
	}
	c, out := rt.Admit(&dispatch.Request{Message: msg, Principal: principal})
	if c == nil {
		t.Fatalf("listen refused: %s", out.Frame)
	}
	s, out := rt.OpenStream(context.Background(), c, w.wake)
	if s == nil {
		t.Fatalf("open failed: %s", out.Frame)
	}
	t.Cleanup(s.Close)
	return s
}

func jobEvent(key, status string) dispatch.Event {
	return dispatch.Event{Kind: dispatch.EventExtension, Member: "jobIds", Key: key, Method: "notifications/jobs",
		Params: json.RawMessage(fmt.Sprintf(`{"jobId":%q, "status":%q}`, key, status))}
}

func TestExtensionFilterCarriesOnlyAllowedKeys(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt := fullRuntime(t, hub, dispatch.WithExtension(jobsExtension()))
	w := newWaker()
	s := openKeyed(t, rt, "alice", map[string]any{"_meta": declaresJobs,
		"notifications": map[string]any{"jobIds": []string{"alice-1", "bob-1", "alice-2", "alice-1"}}}, w)
	if got := s.Accepted().Keys["jobIds"]; strings.Join(got, ",") != "alice-1,alice-2" {
		t.Fatalf("accepted keys %v, want alice-1,alice-2", got)
	}
	frame, _ := next(t, s)
	var ack struct {
		Params struct {
			Notifications map[string]json.RawMessage `json:"notifications"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &ack); err != nil || string(ack.Params.Notifications["jobIds"]) != `["alice-1","alice-2"]` {
		t.Fatalf("acknowledgement: %s", frame)
	}

	// bob-1 was not allowed: its events reach nobody.
	if r, err := hub.Publish(jobEvent("bob-1", "done")); err != nil || r.Matched != 0 {
		t.Fatalf("bob's job: %+v %v", r, err)
	}
	if r, err := hub.Publish(jobEvent("alice-2", "done")); err != nil || r.Matched != 1 {
		t.Fatalf("alice's job: %+v %v", r, err)
	}
	frame, _ = next(t, s)
	var ev struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(frame, &ev); err != nil || ev.Method != "notifications/jobs" || ev.Params["jobId"] != "alice-2" ||
		ev.Params["_meta"].(map[string]any)[mcp.MetaSubscriptionID] != "L" {
		t.Fatalf("event: %s", frame)
	}
	if strings.Contains(string(frame), " ") {
		t.Fatalf("params were not compacted: %s", frame)
	}
}

func TestExtensionFilterNeedsTheDeclaredExtension(t *testing.T) {
	hub := hub.New(hub.Options{})
	rt := fullRuntime(t, hub, dispatch.WithExtension(jobsExtension()))
	s := openKeyed(t, rt, "alice", map[string]any{"notifications": map[string]any{"jobIds": []string{"alice-1"}}}, newWaker())
	if len(s.Accepted().Keys) != 0 {
		t.Fatalf("a request that did not declare the extension was given %v", s.Accepted().Keys)
	}
	// A member no extension adds is ignored, whatever its type.
	s = openKeyed(t, rt, "alice", map[string]any{"_meta": declaresJobs,
		"notifications": map[string]any{"toolsListChanged": true, "otherIds": []string{"x"}, "odd": 3}}, newWaker())
	if len(s.Accepted().Keys) != 0 || !s.Accepted().ToolsListChanged {
		t.Fatalf("accepted %+v", s.Accepted())
	}
}

func TestExtensionFilterValidation(t *testing.T) {
	rt := fullRuntime(t, hub.New(hub.Options{}), dispatch.WithExtension(jobsExtension()))
	many := make([]string, 1000+1)
	for i := range many {
		many[i] = fmt.Sprintf("alice-%d", i)
	}
	for name, ids := range map[string]any{
		"not an array":      "alice-1",
		"not strings":       []any{1},
		"an empty key":      []string{""},
		"over 1,000 keys":   many,
		"an object instead": map[string]any{},
	} {
		t.Run(name, func(t *testing.T) {
			f := testfixture.Dispatch(t, rt, testkit.Request(1, dispatch.MethodListen, map[string]any{"_meta": declaresJobs,
				"notifications": map[string]any{"jobIds": ids}}))
			rpcError(t, f, jsonrpc.CodeInvalidParams)
		})
	}
	s := openKeyed(t, rt, "alice", map[string]any{"_meta": declaresJobs, "notifications": map[string]any{"jobIds": many[:1000]}}, newWaker())
	if n := len(s.Accepted().Keys["jobIds"]); n != 1000 {
		t.Fatalf("accepted %d keys, want %d", n, 1000)
	}
}

func TestExtensionFiltersAreChecked(t *testing.T) {
	bad := func(f dispatch.ExtensionFilter) dispatch.Extension {
		e := jobsExtension()
		e.Filters = []dispatch.ExtensionFilter{f}
		return e
	}
	for name, e := range map[string]dispatch.Extension{
		"a core member":      bad(dispatch.ExtensionFilter{Member: "resourceSubscriptions", Method: "notifications/jobs"}),
		"no member":          bad(dispatch.ExtensionFilter{Method: "notifications/jobs"}),
		"not a notification": bad(dispatch.ExtensionFilter{Member: "jobIds", Method: "jobs/get"}),
	} {
		if _, err := dispatch.New(testInfo, dispatch.WithExtension(e)); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	other := jobsExtension()
	other.ID = "com.example/other"
	other.Methods = map[string]dispatch.ExtensionHandler{"other/get": other.Methods["jobs/get"]}
	if _, err := dispatch.New(testInfo, dispatch.WithExtension(jobsExtension()), dispatch.WithExtension(other)); err == nil {
		t.Error("two extensions adding the same member were accepted")
	}
}

func TestExtensionEventsAreChecked(t *testing.T) {
	good := jobEvent("alice-1", "done")
	for name, mod := range map[string]func(*dispatch.Event){
		"no member":         func(e *dispatch.Event) { e.Member = "" },
		"no key":            func(e *dispatch.Event) { e.Key = "" },
		"not notification":  func(e *dispatch.Event) { e.Method = "jobs/get" },
		"params not object": func(e *dispatch.Event) { e.Params = json.RawMessage(`[1]`) },
		"params not JSON":   func(e *dispatch.Event) { e.Params = json.RawMessage(`{"a":`) },
		"params with _meta": func(e *dispatch.Event) { e.Params = json.RawMessage(`{"_meta":{}}`) },
	} {
		ev := good
		mod(&ev)
		if _, err := dispatch.EncodeEvent(ev, jsonrpc.ID{}); !errors.Is(err, dispatch.ErrInvalidEvent) {
			t.Errorf("%s: EncodeEvent: %v", name, err)
		}
		if _, err := hub.New(hub.Options{}).Publish(ev); !errors.Is(err, dispatch.ErrInvalidEvent) {
			t.Errorf("%s: Publish: %v", name, err)
		}
	}
	// Outside a stream the params go as they are; non-ASCII is escaped.
	ev := good
	ev.Params = json.RawMessage(`{"note":"café"}`)
	b, err := dispatch.EncodeEvent(ev, jsonrpc.ID{})
	if err != nil || string(b) != `{"jsonrpc":"2.0","method":"notifications/jobs","params":{"note":"caf\u00e9"}}` {
		t.Fatalf("untagged: %s %v", b, err)
	}
	ev.Params = nil
	if b, _ := dispatch.EncodeEvent(ev, jsonrpc.ID{}); string(b) != `{"jsonrpc":"2.0","method":"notifications/jobs"}` {
		t.Fatalf("no params: %s", b)
	}
	if b, _ := dispatch.EncodeEvent(ev, jsonrpc.StringID("s")); string(b) != `{"jsonrpc":"2.0","method":"notifications/jobs","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}` {
		t.Fatalf("tagged, no params: %s", b)
	}
}

func TestExtensionEventsFollowTheOverflowPolicy(t *testing.T) {
	for _, policy := range []hub.Overflow{hub.DropOldest, hub.DropNewest} {
		h := hub.New(hub.Options{MaxBuffer: 2, Overflow: policy})
		l := h.Attach(mcp.SubscriptionFilter{Keys: map[string][]string{"jobIds": {"alice-1"}}}, nil)
		var dropped int
		for _, st := range []string{"a", "b", "c"} {
			r, err := h.Publish(jobEvent("alice-1", st))
			if err != nil {
				t.Fatal(err)
			}
			dropped += r.Dropped
		}
		var got []string
		for {
			ev, err := l.Next()
			if err != nil {
				break
			}
			var p struct{ Status string }
			_ = json.Unmarshal(ev.Params, &p)
			got = append(got, p.Status)
		}
		want := "b,c"
		if policy == hub.DropNewest {
			want = "a,b"
		}
		if strings.Join(got, ",") != want || dropped != 1 || l.Dropped() != 1 {
			t.Errorf("policy %d: got %v dropped %d/%d, want %s and 1", policy, got, dropped, l.Dropped(), want)
		}
		l.Close()
		if st := h.Stats(); st.Listeners != 0 {
			t.Errorf("listener still attached: %+v", st)
		}
	}
}

func TestAPanickingAllowFailsOnlyItsStream(t *testing.T) {
	e := jobsExtension()
	e.Filters[0].Allow = func(context.Context, *dispatch.RequestInfo, []string) []string { panic("allow broke") }
	rt := fullRuntime(t, hub.New(hub.Options{}), dispatch.WithExtension(e))
	msg, err := jsonrpc.Decode(testkit.Request("L", dispatch.MethodListen, map[string]any{"_meta": declaresJobs,
		"notifications": map[string]any{"jobIds": []string{"alice-1"}}}))
	if err != nil {
		t.Fatal(err)
	}
	c, out := rt.Admit(&dispatch.Request{Message: msg, Principal: "alice"})
	if c == nil {
		t.Fatalf("listen refused at admission: %s", out.Frame)
	}
	s, out := rt.OpenStream(context.Background(), c, func() {})
	if s != nil {
		s.Close()
		t.Fatal("a stream opened although Allow panicked")
	}
	f := decodeFrame(t, out.Frame)
	if f.Error == nil || f.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("want -32603, got %s", out.Frame)
	}
}
