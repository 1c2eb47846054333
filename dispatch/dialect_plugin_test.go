package dispatch

// Stand-in protocol revisions plugged into a Runtime with withDialect: the
// registry and the handshake path take a new revision without any change
// to the pipeline.

import (
	"context"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// dialect2099 is a stateless revision the package does not build in.
type dialect2099 struct{}

func (dialect2099) Version() string { return "2099-01-01" }
func (dialect2099) Era() era        { return eraStateless }
func (dialect2099) Detect(_ *Request, metaVersion string) match {
	if metaVersion == "2099-01-01" {
		return matchExact
	}
	return matchNone
}
func (d dialect2099) Admit(_ *Runtime, req *Request) (*Call, *jsonrpc.Error) {
	if req.Message.Method != "future/hello" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
	}
	return &Call{
		Info:    RequestInfo{ID: req.Message.ID, Method: req.Message.Method, ProtocolVersion: d.Version()},
		dialect: d,
		op: func(_ context.Context, rt *Runtime, _ *Call) (any, error) {
			return rt.Info().Name, nil
		},
	}, nil
}
func (dialect2099) ShapeResult(_ *Runtime, _ *Call, r any) (any, error) {
	return map[string]any{"resultType": "complete", "greeting": "hello from " + r.(string)}, nil
}
func (dialect2099) ShapeError(_ *Runtime, _ *Call, e *jsonrpc.Error) *jsonrpc.Error { return e }

// dispatchRaw runs one raw message on rt.
func dispatchRaw(t *testing.T, rt *Runtime, sess *Session, raw string) Outcome {
	t.Helper()
	msg, err := jsonrpc.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return rt.Dispatch(context.Background(), &Request{Message: msg, Session: sess})
}

func TestRegistryTakesANewDialectWithoutCoreChanges(t *testing.T) {
	rt, err := New(mcp.Implementation{Name: "future", Version: "1"},
		WithProtocolVersions(mcp.Version20260728), withDialect(dialect2099{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.protocolVersions(); len(got) != 2 || got[0] != "2026-07-28" || got[1] != "2099-01-01" {
		t.Fatalf("versions = %v", got)
	}
	out := dispatchRaw(t, rt, nil, `{"jsonrpc":"2.0","id":1,"method":"future/hello","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`)
	if string(out.Frame) != `{"jsonrpc":"2.0","id":1,"result":{"greeting":"hello from future","resultType":"complete"}}` {
		t.Fatalf("2099 call: %s", out.Frame)
	}
	// 2026-07-28 traffic is unaffected, and discover lists both revisions.
	out = dispatchRaw(t, rt, nil, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if !strings.Contains(string(out.Frame), `"supportedVersions":["2026-07-28","2099-01-01"]`) {
		t.Fatalf("discover: %s", out.Frame)
	}
	if _, err := New(mcp.Implementation{Name: "x", Version: "1"}, withDialect(dialect2099{}), withDialect(dialect2099{})); err == nil {
		t.Fatal("the same revision was enabled twice")
	}
	if _, err := New(mcp.Implementation{Name: "x", Version: "1"}, withDialect(nil)); err == nil {
		t.Fatal("a nil dialect was accepted")
	}
}

// sessionDialect is an initialize-era revision the package does not build
// in: its initialize result is a handshakeResult.
type sessionDialect struct{}

type pluggedHandshake struct{ h handshake }

func (r pluggedHandshake) Handshake() handshake { return r.h }

func (sessionDialect) Version() string { return "2099-12-31" }
func (sessionDialect) Era() era        { return eraSession }
func (d sessionDialect) Detect(req *Request, _ string) match {
	if req.Session.ProtocolVersion() == d.Version() {
		return matchClaim
	}
	return matchNone
}
func (d sessionDialect) Admit(_ *Runtime, req *Request) (*Call, *jsonrpc.Error) {
	return &Call{
		Info:    RequestInfo{ID: req.Message.ID, Method: req.Message.Method, ProtocolVersion: d.Version()},
		dialect: d, Session: req.Session,
		op: func(_ context.Context, _ *Runtime, c *Call) (any, error) {
			if c.Info.Method != "initialize" {
				return map[string]any{"claimed": c.Session.ProtocolVersion()}, nil
			}
			return pluggedHandshake{handshake{ProtocolVersion: d.Version(), ClientInfo: &mcp.Implementation{Name: "c", Version: "1"}}}, nil
		},
	}, nil
}
func (sessionDialect) ShapeResult(_ *Runtime, _ *Call, r any) (any, error) {
	if h, ok := r.(pluggedHandshake); ok {
		return map[string]any{"protocolVersion": h.h.ProtocolVersion}, nil
	}
	return r, nil
}
func (sessionDialect) ShapeError(_ *Runtime, _ *Call, e *jsonrpc.Error) *jsonrpc.Error { return e }

func TestPluggedDialectNegotiates(t *testing.T) {
	rt, err := New(mcp.Implementation{Name: "s", Version: "1"}, WithProtocolVersions(mcp.Version20260728), withDialect(sessionDialect{}))
	if err != nil {
		t.Fatal(err)
	}
	sess := NewSession()
	out := dispatchRaw(t, rt, sess, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-12-31"}}`)
	if out.NegotiatedVersion != "2099-12-31" || sess.ProtocolVersion() != "2099-12-31" || sess.clientInfo().Name != "c" {
		t.Fatalf("outcome %q, session %q: %s", out.NegotiatedVersion, sess.ProtocolVersion(), out.Frame)
	}
	out = dispatchRaw(t, rt, sess, `{"jsonrpc":"2.0","id":2,"method":"whoami"}`)
	if !strings.Contains(string(out.Frame), `"claimed":"2099-12-31"`) {
		t.Fatalf("later message: %s", out.Frame)
	}
}
