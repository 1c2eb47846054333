package dispatch_test

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/testkit"
)

// dialect2099 is a protocol revision defined outside the package: the
// registry takes it without any change to the pipeline.
type dialect2099 struct{}

func (dialect2099) Version() string   { return "2099-01-01" }
func (dialect2099) Era() dispatch.Era { return dispatch.EraStateless }
func (dialect2099) Detect(req *dispatch.Request, metaVersion string) dispatch.Match {
	if metaVersion == "2099-01-01" {
		return dispatch.MatchExact
	}
	return dispatch.MatchNone
}
func (d dialect2099) Admit(rt *dispatch.Runtime, req *dispatch.Request) (*dispatch.Call, *jsonrpc.Error) {
	if req.Message.Method != "future/hello" {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found")
	}
	return &dispatch.Call{
		Info:    dispatch.RequestInfo{ID: req.Message.ID, Method: req.Message.Method, ProtocolVersion: d.Version()},
		Dialect: d,
		Op: func(_ context.Context, rt *dispatch.Runtime, _ *dispatch.Call) (any, error) {
			return rt.Info().Name, nil
		},
	}, nil
}
func (dialect2099) ShapeResult(_ *dispatch.Runtime, _ *dispatch.Call, r any) (any, error) {
	return map[string]any{"resultType": "complete", "greeting": "hello from " + r.(string)}, nil
}
func (dialect2099) ShapeError(_ *dispatch.Runtime, _ *dispatch.Call, e *jsonrpc.Error) *jsonrpc.Error {
	return e
}

func TestRegistryTakesANewDialectWithoutCoreChanges(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "future", Version: "1"},
		dispatch.WithProtocolVersions(mcp.Version20260728), dispatch.WithDialect(dialect2099{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.ProtocolVersions(); len(got) != 2 || got[0] != "2026-07-28" || got[1] != "2099-01-01" {
		t.Fatalf("versions = %v", got)
	}
	f := testkit.Dispatch(t, rt, []byte(`{"jsonrpc":"2.0","id":1,"method":"future/hello","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`))
	if f.Error != nil || string(f.Result) != `{"greeting":"hello from future","resultType":"complete"}` {
		t.Fatalf("2099 call: %s", f.Raw)
	}
	// 2026-07-28 traffic is unaffected, and discover lists both revisions.
	r := result(t, testkit.Dispatch(t, rt, testkit.Request(2, "server/discover", nil)))
	if v := r["supportedVersions"].([]any); len(v) != 2 || v[1] != "2099-01-01" {
		t.Fatalf("supportedVersions = %v", v)
	}
	if _, err := dispatch.New(mcp.Implementation{Name: "x", Version: "1"}, dispatch.WithDialect(dialect2099{}), dispatch.WithDialect(dialect2099{})); err == nil {
		t.Fatal("the same revision was enabled twice")
	}
}
