package actors

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/mcp"
)

// negotiated is the initialize-era revision the test negotiates: not the
// preferred one, so a later message served under the preferred revision
// would show (2025-06-18 drops tool icons, 2025-11-25 keeps them).
const negotiated = mcp.Version20250618

// lines is a FrameReader fed by the test.
type lines chan []byte

func (l lines) ReadFrame() ([]byte, error) {
	f, ok := <-l
	if !ok {
		return nil, io.EOF
	}
	return f, nil
}

// TestNegotiatedVersionAppliesToLaterMessages checks the connection's side
// of initialize-era support: the version a successful initialize
// negotiates is recorded before its response is written and is given as
// the transport's version claim to every later message, which is how
// dialect selection is shared with HTTP's MCP-Protocol-Version header.
func TestNegotiatedVersionAppliesToLaterMessages(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(logger),
		dispatch.WithProtocolVersions(mcp.Version20260728, mcp.Version20251125, mcp.Version20250618),
		dispatch.WithTool(mcp.Tool{Name: "t", Icons: []mcp.Icon{{Src: "https://example.com/t.png"}}},
			func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("t"), nil
			}))
	if err != nil {
		t.Fatal(err)
	}
	exec := executor.New(executor.Config{Logger: logger})
	sys, err := newSystem(tree.SystemConfig{Logger: logger, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	in := make(lines)
	outR, outW := io.Pipe()
	h, err := sys.StartConn(tree.ConnConfig{
		Runtime: rt, Input: in, Output: outW, Transport: dispatch.TransportStdio,
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(outR)
	roundTrip := func(frame string) map[string]json.RawMessage {
		t.Helper()
		in <- []byte(frame)
		if !sc.Scan() {
			t.Fatalf("no response to %s: %v", frame, sc.Err())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	// Before initialize nothing is recorded, and a message without a
	// version goes to the preferred initialize-era revision, which keeps
	// the tool's icons.
	if m := roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !strings.Contains(string(m["result"]), `"icons"`) {
		t.Fatalf("tools/list before initialize: %s %s", m["result"], m["error"])
	}
	if h.ProtocolVersion() != "" {
		t.Fatalf("a version was recorded before initialize: %q", h.ProtocolVersion())
	}
	if m := roundTrip(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"` + negotiated + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`); m["result"] == nil {
		t.Fatalf("initialize failed: %s", m["error"])
	}
	if h.ProtocolVersion() != negotiated {
		t.Fatalf("recorded version %q", h.ProtocolVersion())
	}
	in <- []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	m := roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m["result"] == nil || strings.Contains(string(m["result"]), `"icons"`) {
		t.Fatalf("a later message was not served under the negotiated version: %s %s", m["result"], m["error"])
	}
	var sawAttr bool
	sys.Tree().Walk(func(n *tree.Node) {
		sawAttr = sawAttr || (n.Kind == tree.KindConnection && n.Attrs["protocolVersion"] == negotiated)
	})
	if !sawAttr {
		t.Fatal("the tree does not show the connection's negotiated version")
	}

	close(in)
	go io.Copy(io.Discard, outR)
	select {
	case <-h.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end at EOF")
	}
	if err := h.Err(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sys.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sys.registered(); n != 0 {
		t.Fatalf("%d actors still registered", n)
	}
	if n := sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}
