package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// legacyServer is an initialize-era fake: server/discover is an unknown
// method, initialize picks the client's version when it is one of
// versions (else the first), and tools/call asks the client for input
// with server-to-client requests before answering.
func legacyServer(versions ...string) func(f *fake, m *jsonrpc.Message) {
	return func(f *fake, m *jsonrpc.Message) {
		switch m.Method {
		case "initialize":
			var v string
			param(m, "protocolVersion", &v)
			if !slices.Contains(versions, v) {
				v = versions[0]
			}
			f.reply(m.ID, map[string]any{"protocolVersion": v, "serverInfo": map[string]any{"name": "old", "version": "0.9"},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{"subscribe": true}},
				"instructions": "legacy"})
		case "tools/call":
			ping := f.ask("ping", nil)
			elicit := f.ask("elicitation/create", map[string]any{"message": "Name?", "requestedSchema": map[string]any{"type": "object"}})
			unknown := f.ask("tasks/list", map[string]any{})
			var token json.RawMessage
			if meta := metaOf(m); meta != nil {
				token = meta["progressToken"]
			}
			if token != nil {
				f.notify("notifications/progress", map[string]any{"progressToken": token, "progress": 1})
			}
			f.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text",
				"text": string(ping.Result) + " " + string(elicit.Result) + " " + string(unknown.Error)}}})
		case "resources/subscribe", "resources/unsubscribe":
			f.reply(m.ID, map[string]any{})
			if m.Method == "resources/subscribe" {
				f.notify("notifications/tools/list_changed", nil)
				f.notify("notifications/resources/updated", map[string]any{"uri": "file:///other"})
				f.notify("notifications/resources/updated", map[string]any{"uri": "file:///watched"})
			}
		case "notifications/initialized", "notifications/cancelled":
		case "block":
		default:
			if m.Kind == jsonrpc.KindRequest {
				f.fail(m.ID, jsonrpc.CodeMethodNotFound, "Method not found: "+m.Method, nil)
			}
		}
	}
}

func TestFallsBackToInitialize(t *testing.T) {
	f, tr := startFake(t, legacyServer(mcp.Version20251125, mcp.Version20250618))
	c := connect(t, tr, elicitAda(mcp.ElicitModeForm, mcp.ElicitModeURL))
	if v := c.Server().ProtocolVersion; v != mcp.Version20251125 {
		t.Fatalf("negotiated %q", v)
	}
	s := c.Server()
	if s.Implementation.Name != "old" || s.Instructions != "legacy" || !slices.Equal(s.SupportedVersions, []string{mcp.Version20251125}) {
		t.Fatalf("server %+v", s)
	}
	init := f.received("initialize")[0]
	var caps map[string]any
	var info mcp.Implementation
	if !param(init, "capabilities", &caps) || caps["elicitation"] == nil || !param(init, "clientInfo", &info) || info.Name != "snodo-go" {
		t.Fatalf("initialize params %s", init.Params)
	}
	if _, ok := jsonwire.Member(init.Params, "_meta"); ok {
		t.Fatalf("initialize carries _meta: %s", init.Params)
	}
	f.await(t, "notifications/initialized")
	var progressed int
	res, err := c.CallTool(context.Background(), "anything", nil, client.WithProgress(func(mcp.Progress) { progressed++ }))
	if err != nil {
		t.Fatal(err)
	}
	want := `{} {"action":"accept","content":{"asked":"Name?","name":"Ada"}} {"code":-32601,"message":"Method not found: tasks/list"}`
	if got := textOf(t, res); got != want || progressed != 1 {
		t.Fatalf("got %s (progress %d)\nwant %s", got, progressed, want)
	}
	call := f.received("tools/call")[0]
	meta := metaOf(call)
	if _, ok := meta["io.modelcontextprotocol/protocolVersion"]; ok || meta["progressToken"] == nil {
		t.Fatalf("initialize-era _meta %v", meta)
	}
	if s := c.Server(); s.Instructions != "legacy" || s.Capabilities.Tools == nil {
		t.Fatalf("server info %+v", s)
	}
}

// TestLegacyListen: in the initialize era a listen subscribes to each
// resource and keeps the notifications that match.
func TestLegacyListen(t *testing.T) {
	f, tr := startFake(t, legacyServer(mcp.Version20250618))
	c := connect(t, tr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{PromptsListChanged: true, ResourceSubscriptions: []string{"file:///watched"}})
	if err != nil {
		t.Fatal(err)
	}
	if a := sub.Acknowledged(); a.PromptsListChanged || len(a.ResourceSubscriptions) != 1 {
		t.Fatalf("acknowledged %+v (the server has no prompts)", a)
	}
	ev, err := sub.Next(ctx)
	if err != nil || ev.Method != "notifications/resources/updated" || ev.URI != "file:///watched" {
		t.Fatalf("%+v %v", ev, err)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	var uri string
	if u := f.await(t, "resources/unsubscribe"); !param(u, "uri", &uri) || uri != "file:///watched" {
		t.Fatalf("unsubscribe %s", u.Params)
	}
	if _, err := sub.Next(ctx); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestLegacyCancelSendsNotification: on stdio every revision cancels
// with notifications/cancelled.
func TestLegacyCancelSendsNotification(t *testing.T) {
	f, tr := startFake(t, legacyServer(mcp.Version20251125))
	c := connect(t, tr)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "block", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a deadline error, got %v", err)
	}
	note := f.await(t, "notifications/cancelled")
	var id jsonrpc.ID
	if !param(note, "requestId", &id) || id != f.received("block")[0].ID {
		t.Fatalf("cancelled %s", note.Params)
	}
}

func TestUnsupportedVersionErrorNamesTheWay(t *testing.T) {
	f, tr := startFake(t, func(f *fake, m *jsonrpc.Message) {
		if m.Method == "server/discover" {
			f.fail(m.ID, mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version",
				map[string]any{"supported": []string{"2025-06-18"}, "requested": "2026-07-28"})
			return
		}
		legacyServer(mcp.Version20250618)(f, m)
	})
	c := connect(t, tr)
	if v := c.Server().ProtocolVersion; v != mcp.Version20250618 {
		t.Fatalf("negotiated %q", v)
	}
	var v string
	if !param(f.received("initialize")[0], "protocolVersion", &v) || v != mcp.Version20250618 {
		t.Fatalf("initialize asked for %q", v)
	}
}

func TestNoCommonVersion(t *testing.T) {
	_, tr := startFake(t, func(f *fake, m *jsonrpc.Message) {
		if m.Method == "server/discover" {
			res := discovered(nil)
			res["supportedVersions"] = []string{"2099-01-01"}
			f.reply(m.ID, res)
		}
	})
	_, err := client.New(context.Background(), tr)
	if !errors.Is(err, client.ErrNoCommonVersion) || !strings.Contains(err.Error(), "server 2099-01-01") {
		t.Fatalf("got %v", err)
	}
}

func TestInitializeAnswersUnknownVersion(t *testing.T) {
	_, tr := startFake(t, legacyServer("2024-11-05"))
	_, err := client.New(context.Background(), tr, client.WithProtocolVersions(mcp.Version20250618))
	if !errors.Is(err, client.ErrNoCommonVersion) {
		t.Fatalf("got %v", err)
	}
}

// TestSilentProbe: a server that never answers server/discover is taken
// to be of the initialize era once the probe times out.
func TestSilentProbe(t *testing.T) {
	f, tr := startFake(t, func(f *fake, m *jsonrpc.Message) {
		if m.Method == "server/discover" {
			return
		}
		legacyServer(mcp.Version20251125)(f, m)
	})
	c := connect(t, tr, client.WithLimits(client.Limits{ProbeTimeout: 200 * time.Millisecond}))
	if v := c.Server().ProtocolVersion; v != mcp.Version20251125 {
		t.Fatalf("negotiated %q", v)
	}
	// The abandoned probe was cancelled.
	cancel := f.await(t, "notifications/cancelled")
	var id jsonrpc.ID
	if !param(cancel, "requestId", &id) || id != f.received("server/discover")[0].ID {
		t.Fatalf("cancelled %s", cancel.Params)
	}
}

func TestOptionsValidated(t *testing.T) {
	_, tr := startFake(t, modern(func(*fake, *jsonrpc.Message) {}))
	for name, opt := range map[string]client.Option{
		"version": client.WithProtocolVersions("2024-11-05"),
		"none":    client.WithProtocolVersions(),
		"timeout": client.WithLimits(client.Limits{RequestTimeout: -1}),
		"pages":   client.WithLimits(client.Limits{MaxPages: -1}),
		"rounds":  client.WithLimits(client.Limits{MaxInputRounds: -1}),
		"elicitation mode": client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, nil
		}, "voice"),
		"log level": client.WithLogMessages("loud", func(mcp.LogMessage) {}),
		"info":      client.WithClientInfo(mcp.Implementation{Name: "x"}),
	} {
		if _, err := client.New(context.Background(), tr, opt); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := client.New(context.Background(), nil); err == nil {
		t.Error("nil transport accepted")
	}
}

// TestServerRequestsBounded: at most 16 server requests are answered at
// once; more are refused at once with -32603 instead of piling up.
func TestServerRequestsBounded(t *testing.T) {
	gate := make(chan struct{})
	f, tr := startFake(t, legacyServer(mcp.Version20251125))
	connect(t, tr, client.WithRoots(func(ctx context.Context) ([]mcp.Root, error) {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return []mcp.Root{{URI: "file:///r"}}, nil
	}))
	answers := make(chan *jsonrpc.Message, 20)
	for range 20 {
		go func() { answers <- f.ask("roots/list", nil) }()
	}
	var refused, answered int
	for range 4 {
		m := <-answers
		if m == nil || m.Error == nil {
			t.Fatalf("before the handlers return only refusals arrive, got %+v", m)
		}
		refused++
	}
	close(gate)
	for range 16 {
		m := <-answers
		if m == nil || m.Error != nil {
			t.Fatalf("got %+v", m)
		}
		answered++
	}
	if refused != 4 || answered != 16 {
		t.Fatalf("refused %d, answered %d", refused, answered)
	}
}

// TestElicitationModesDeclared: WithElicitation declares form mode when
// no mode is listed, and exactly the listed modes otherwise.
func TestElicitationModesDeclared(t *testing.T) {
	for _, c := range []struct {
		modes []string
		want  string
	}{
		{nil, `{"form":{}}`},
		{[]string{mcp.ElicitModeURL}, `{"url":{}}`},
		{[]string{mcp.ElicitModeForm, mcp.ElicitModeURL}, `{"form":{},"url":{}}`},
	} {
		f, tr := startFake(t, legacyServer(mcp.Version20251125))
		connect(t, tr, elicitAda(c.modes...))
		var caps map[string]json.RawMessage
		if !param(f.received("initialize")[0], "capabilities", &caps) {
			t.Fatal("initialize without capabilities")
		}
		if got := string(caps["elicitation"]); got != c.want {
			t.Errorf("modes %v: elicitation capability %s, want %s", c.modes, got, c.want)
		}
	}
}
