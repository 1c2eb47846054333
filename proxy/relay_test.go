package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

var revisions = []string{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618}

// serve serves rt the way a server of version is reached: 2026-07-28 in
// process, 2025-11-25 over HTTP with sessions, 2025-06-18 over stdio.
func serve(t *testing.T, rt *dispatch.Runtime, version string) client.Transport {
	t.Helper()
	switch version {
	case mcp.Version20250618:
		return stdioTransport(t, rt)
	case mcp.Version20251125:
		h, err := streamablehttp.NewHandler(rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{}))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(func() { srv.Close(); _ = h.Close() })
		return &client.HTTPTransport{URL: srv.URL + "/mcp"}
	}
	return inprocess.New(rt)
}

// surveyRemote serves "survey", which asks for a name (elicitation),
// then for a sample and the roots, and reports the answers; ended
// receives the outcome of each tools/call when it ends.
func surveyRemote(t *testing.T, ended chan<- instrumentation.Outcome) *dispatch.Runtime {
	t.Helper()
	survey := func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		state, _ := req.Input.State()
		name, named := req.Input.Elicitation("name")
		switch {
		case len(state) == 0:
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"name": mcp.ElicitForm("Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
			}, State: []byte("r1")}
		case string(state) == "r1" && named:
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
				"model": &mcp.CreateMessageRequest{MaxTokens: 5, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.Text("hi")}}}},
				"roots": &mcp.ListRootsRequest{},
			}, State: []byte("r2:" + name.Content["name"].(string))}
		}
		sample, _ := req.Input.Sampling("model")
		roots, _ := req.Input.Roots("roots")
		if sample == nil || roots == nil || len(roots.Roots) != 1 {
			return mcp.ErrorResult("bad answers"), nil
		}
		return mcp.TextResult(string(state) + " " + sample.Model + " " + roots.Roots[0].URI), nil
	}
	opts := []dispatch.Option{dispatch.WithLogger(quiet), dispatch.WithTool(mcp.Tool{Name: "survey"}, survey)}
	if ended != nil {
		opts = append(opts, dispatch.WithInstrumentation(&callEnds{ch: ended}))
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "survey", Version: "1.0.0"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// callEnds reports the outcome of each tools/call.
type callEnds struct {
	instrumentation.Nop
	ch chan<- instrumentation.Outcome
}

func (c *callEnds) DispatchStop(_ context.Context, e instrumentation.DispatchStop) {
	if e.Method == "tools/call" {
		c.ch <- e.Outcome
	}
}

// answering are the handlers of a downstream client that serves every
// kind of input.
func answering() []client.Option {
	return []client.Option{
		client.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}),
		client.WithSampling(func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m1", Content: []mcp.Content{mcp.Text("ok")}}, nil
		}),
		client.WithRoots(func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work"}}, nil }),
	}
}

// Input asked by a remote of any revision reaches a downstream client of
// any revision through the proxy, over three rounds (elicitation, then
// sampling and roots), and the answers reach the remote: a 2026-07-28
// client answers input_required results, an initialize-era one real
// requests.
func TestProxyRelaysInputEveryRevision(t *testing.T) {
	for _, remote := range revisions {
		for _, downstream := range revisions {
			t.Run(remote+"/to/"+downstream, func(t *testing.T) {
				rt := surveyRemote(t, nil)
				b := dial(t, serve(t, rt, remote), proxy.WithClientOptions(client.WithProtocolVersions(remote)))
				c := testkit.Connect(t, serve(t, b.Runtime(), downstream), append(answering(), client.WithProtocolVersions(downstream))...)
				if got := c.Server().ProtocolVersion; got != downstream {
					t.Fatalf("the downstream client speaks %s", got)
				}
				res, err := c.CallTool(context.Background(), "survey", nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "r2:Ada m1 file:///work" {
					t.Fatalf("the remote saw %q", got)
				}
			})
		}
	}
}

// A downstream client without a capability the remote asks for: the
// remote's request is refused (a 2026-07-28 remote learns it from the
// request's capabilities, an initialize-era one gets -32601 for its
// request), so the call fails with an error and nothing stays held.
func TestProxyRefusesInputTheClientCannotServe(t *testing.T) {
	for _, remote := range revisions {
		t.Run(remote, func(t *testing.T) {
			rt := surveyRemote(t, nil)
			b := dial(t, serve(t, rt, remote), proxy.WithClientOptions(client.WithProtocolVersions(remote)))
			c := testkit.Connect(t, inprocess.New(b.Runtime()), answering()[0]) // elicitation only
			_, err := c.CallTool(context.Background(), "survey", nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				t.Fatalf("a call whose input the client cannot serve: %v", err)
			}
			if remote != mcp.Version20260728 && !strings.Contains(je.Message, "sampling/createMessage (the proxy's client does not serve it)") {
				t.Fatalf("the error does not name what was refused: %v", je)
			}
		})
	}
}

// A downstream client that never comes back with its answer: the held
// call is cancelled upstream after InputWait, and a late retry is told
// the call is gone.
func TestProxyHeldCallExpires(t *testing.T) {
	for _, remote := range []string{mcp.Version20251125, mcp.Version20250618} {
		t.Run(remote, func(t *testing.T) {
			ended := make(chan instrumentation.Outcome, 1)
			rt := surveyRemote(t, ended)
			b := dial(t, serve(t, rt, remote), proxy.WithClientOptions(client.WithProtocolVersions(remote)),
				proxy.WithLimits(proxy.Limits{InputWait: 20 * time.Millisecond}))
			c := testkit.Connect(t, inprocess.New(b.Runtime()))
			caps := client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
			_, err := c.CallTool(context.Background(), "survey", nil, caps)
			var ir *client.InputRequiredError
			if !errors.As(err, &ir) || len(ir.Requests) != 1 || ir.RequestState == "" {
				t.Fatalf("the first round: %v", err)
			}
			// The remote's call ends with no retry: the proxy gave up.
			select {
			case o := <-ended:
				if o == instrumentation.OutcomeResult {
					t.Fatalf("the remote's call ended with a result")
				}
			case <-time.After(testkit.DefaultTimeout):
				t.Fatal("the held call was not cancelled upstream")
			}
			var key string
			for k := range ir.Requests {
				key = k
			}
			_, err = c.CallTool(context.Background(), "survey", nil, caps,
				client.WithInputResponses(map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}, ir.RequestState))
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "no longer held") {
				t.Fatalf("a retry after the call expired: %v", err)
			}
		})
	}
}

// At most MaxHeldCalls calls wait for their downstream client at once:
// the remote's input request of one more is refused, naming the bound.
func TestProxyBoundsHeldCalls(t *testing.T) {
	rt := surveyRemote(t, nil)
	b := dial(t, serve(t, rt, mcp.Version20251125), proxy.WithClientOptions(client.WithProtocolVersions(mcp.Version20251125)),
		proxy.WithLimits(proxy.Limits{MaxHeldCalls: 1}))
	c := testkit.Connect(t, inprocess.New(b.Runtime()))
	caps := client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
	var ir *client.InputRequiredError
	if _, err := c.CallTool(context.Background(), "survey", nil, caps); !errors.As(err, &ir) {
		t.Fatalf("the first call: %v", err)
	}
	if h := b.Health(); h.HeldCalls != 1 {
		t.Fatalf("health while one call is held: %+v", h)
	}
	_, err := c.CallTool(context.Background(), "survey", nil, caps)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !strings.Contains(je.Message, "MaxHeldCalls 1") {
		t.Fatalf("a second call while one is held: %v", err)
	}
}

// Over HTTP a remote's request arrives on the exchange of its call, so
// two calls waiting for input at once are each relayed; over stdio,
// which relates no server-to-client request to a call, a request that
// arrives while another call is held cannot be placed and is refused.
func TestProxyPlacesInputByExchange(t *testing.T) {
	for _, remote := range []string{mcp.Version20251125, mcp.Version20250618} {
		t.Run(remote, func(t *testing.T) {
			rt := surveyRemote(t, nil)
			b := dial(t, serve(t, rt, remote), proxy.WithClientOptions(client.WithProtocolVersions(remote)))
			c := testkit.Connect(t, inprocess.New(b.Runtime()))
			ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
			defer cancel()
			caps := client.WithCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
			var ir *client.InputRequiredError
			if _, err := c.CallTool(ctx, "survey", nil, caps); !errors.As(err, &ir) {
				t.Fatalf("the first call: %v", err)
			}
			_, err := c.CallTool(ctx, "survey", nil, caps)
			if remote == mcp.Version20251125 {
				if !errors.As(err, &ir) || b.Health().HeldCalls != 2 {
					t.Fatalf("a second call over HTTP: %v, %+v", err, b.Health())
				}
				return
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || !strings.Contains(je.Message, "cannot tell which of its calls") {
				t.Fatalf("a second call over stdio: %v", err)
			}
		})
	}
}
