package actors

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// sessionDialect is a stand-in for an initialize-era revision: it serves
// initialize, and afterwards claims every message whose connection
// negotiated its version. Its "whoami" method reports the version the
// transport claimed for the message.
type sessionDialect struct{}

const fakeVersion = "2099-01-01"

func (sessionDialect) Version() string   { return fakeVersion }
func (sessionDialect) Era() dispatch.Era { return dispatch.EraSession }
func (sessionDialect) ShapeError(_ *dispatch.Runtime, _ *dispatch.Call, e *jsonrpc.Error) *jsonrpc.Error {
	return e
}
func (sessionDialect) ShapeResult(_ *dispatch.Runtime, _ *dispatch.Call, r any) (any, error) {
	if h, ok := r.(handshake); ok {
		return map[string]any{"protocolVersion": h.Handshake().ProtocolVersion}, nil
	}
	return r, nil
}

// handshake is the stand-in's initialize result: a dispatch.HandshakeResult,
// which is how a dialect outside dispatch reports a negotiated version.
type handshake struct{}

func (handshake) Handshake() dispatch.Handshake {
	return dispatch.Handshake{ProtocolVersion: fakeVersion}
}

func (sessionDialect) Detect(req *dispatch.Request, _ string) dispatch.Match {
	if req.ProtocolVersion == fakeVersion {
		return dispatch.MatchClaim
	}
	return dispatch.MatchNone
}

func (d sessionDialect) Admit(_ *dispatch.Runtime, req *dispatch.Request) (*dispatch.Call, *jsonrpc.Error) {
	claimed := req.ProtocolVersion
	return &dispatch.Call{
		Info:    dispatch.RequestInfo{ID: req.Message.ID, Method: req.Message.Method, ProtocolVersion: fakeVersion},
		Dialect: d,
		Op: func(_ context.Context, _ *dispatch.Runtime, c *dispatch.Call) (any, error) {
			if c.Info.Method == "initialize" {
				return handshake{}, nil
			}
			return map[string]any{"claimed": claimed}, nil
		},
	}, nil
}

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
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(logger), dispatch.WithDialect(sessionDialect{}))
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

	// Before initialize nothing claims the version: the built-in stateless
	// revision answers, refusing a method it does not know.
	if m := roundTrip(`{"jsonrpc":"2.0","id":1,"method":"whoami"}`); m["error"] == nil {
		t.Fatalf("whoami before initialize was served: %s", m["result"])
	}
	if h.ProtocolVersion() != "" {
		t.Fatalf("a version was recorded before initialize: %q", h.ProtocolVersion())
	}
	if m := roundTrip(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"` + fakeVersion + `"}}`); m["result"] == nil {
		t.Fatalf("initialize failed: %s", m["error"])
	}
	if h.ProtocolVersion() != fakeVersion {
		t.Fatalf("recorded version %q", h.ProtocolVersion())
	}
	m := roundTrip(`{"jsonrpc":"2.0","id":3,"method":"whoami"}`)
	if string(m["result"]) != `{"claimed":"`+fakeVersion+`"}` {
		t.Fatalf("a later message was not served under the negotiated version: %s %s", m["result"], m["error"])
	}
	var sawAttr bool
	sys.Tree().Walk(func(n *tree.Node) {
		sawAttr = sawAttr || (n.Kind == tree.KindConnection && n.Attrs["protocolVersion"] == fakeVersion)
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
