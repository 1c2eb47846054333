package streamablehttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
)

// A call a rate limit refuses is a JSON-RPC error in a 200 response that
// carries Retry-After, on 2026-07-28 and on an initialize-era revision
// alike; a call it admits carries none.
func TestRateLimitedCallCarriesRetryAfter(t *testing.T) {
	rt, err := dispatch.New(mcp.Implementation{Name: "limited", Version: "1"}, dispatch.WithLogger(quiet()),
		dispatch.WithTool(mcp.Tool{Name: "costly"}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
		}, dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(30 * time.Second), Burst: 1})))
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, rt)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(h))
	ts := mount(t, h, mux)
	auth := func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }

	first := testfixture.PostMCP(t, ts.Client(), ts.URL+"/mcp", call(1, "costly", nil), auth)
	if first.Status != 200 || first.Last().Error != nil || first.Header.Get("Retry-After") != "" {
		t.Fatalf("admitted call: %d %s, Retry-After %q", first.Status, first.Body, first.Header.Get("Retry-After"))
	}
	second := testfixture.PostMCP(t, ts.Client(), ts.URL+"/mcp", call(2, "costly", nil), auth)
	if second.Status != 200 {
		t.Fatalf("refused call: status %d, want 200", second.Status)
	}
	if f := second.Last(); f.Error == nil || f.Error.Code != dispatch.CodeRateLimited {
		t.Fatalf("refused call: %s", second.Body)
	}
	if got := second.Header.Get("Retry-After"); got != "30" {
		t.Fatalf("Retry-After = %q, want 30", got)
	}

	legacy := []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"costly"}}`)
	third := testfixture.PostMCP(t, ts.Client(), ts.URL+"/mcp", legacy, func(r *http.Request) {
		auth(r)
		r.Header.Set(mcp.HeaderProtocolVersion, "2025-11-25")
	})
	if f := third.Last(); third.Status != 200 || f == nil || f.Error == nil || f.Error.Code != dispatch.CodeRateLimited {
		t.Fatalf("initialize-era refused call: %d %s", third.Status, third.Body)
	}
	if got := third.Header.Get("Retry-After"); got == "" || got == "0" {
		t.Fatalf("initialize-era Retry-After = %q", got)
	}
}
