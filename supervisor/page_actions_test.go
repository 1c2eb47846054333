package supervisor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/html"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestDebugHandlerRefusesBadOptions(t *testing.T) {
	sup := newSupervisor(t)
	if _, err := sup.DebugHandler(supervisor.WithActions(nil)); err == nil || !strings.Contains(err.Error(), "WithActions") {
		t.Fatalf("nil authorize: %v", err)
	}
	if _, err := sup.DebugHandler(supervisor.WithPageLimits(supervisor.PageLimits{MaxNodes: -1})); err == nil || !strings.Contains(err.Error(), "WithPageLimits") {
		t.Fatalf("negative limit: %v", err)
	}
}

// The actions: off unless enabled; then a same-origin POST the
// application authorizes cancels a stdio request (its handler's context
// ends, nothing is answered) or stops a connection.
func TestPageActions(t *testing.T) {
	entered := make(chan struct{}, 4)
	cancelled := make(chan struct{}, 4)
	rt := quietRuntime(t, dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		entered <- struct{}{}
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	}))
	sup := newSupervisor(t)
	srv := testkit.StartStdioWith(t, sup, rt)
	var allowed atomic.Bool
	allowed.Store(true)
	h, err := sup.DebugHandler(supervisor.WithActions(func(*http.Request) error {
		if !allowed.Load() {
			return errors.New("not an operator")
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(h)
	defer web.Close()
	readOnly := httptest.NewServer(sup.Handler())
	defer readOnly.Close()
	origin := web.URL

	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	<-entered
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("request") == 1 })
	conn := testkit.Find(tree, "connection")
	req := testkit.Find(tree, "request")

	// The page offers them.
	_, doc := getPage(t, web.URL)
	forms := map[string]string{}
	for _, f := range all(doc, func(n *html.Node) bool { return n.Data == "form" && hasClass(n, "action") }) {
		var action, id string
		for _, in := range all(f, func(n *html.Node) bool { return n.Data == "input" }) {
			name, _ := attr(in, "name")
			v, _ := attr(in, "value")
			if name == "action" {
				action = v
			} else if name == "id" {
				id = v
			}
		}
		if m, _ := attr(f, "method"); m != "post" {
			t.Fatalf("an action by %s", m)
		}
		forms[id] = action
	}
	if len(forms) != 2 || forms[req.ID] != "cancel" || forms[conn.ID] != "stop" {
		t.Fatalf("actions offered: %v", forms)
	}

	post := func(base, origin, accept string, form url.Values) *http.Response {
		r, _ := http.NewRequest(http.MethodPost, base, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	cancel := url.Values{"action": {"cancel"}, "id": {req.ID}}
	for _, c := range []struct {
		name, base, origin string
		allowed            bool
		want               int
	}{
		{"read-only handler", readOnly.URL, "", true, http.StatusMethodNotAllowed},
		{"another site's Origin", web.URL, "http://evil.example", true, http.StatusForbidden},
		{"another port", web.URL, "http://127.0.0.1:1", true, http.StatusForbidden},
		{"an opaque Origin", web.URL, "null", true, http.StatusForbidden},
		{"the application refuses", web.URL, origin, false, http.StatusForbidden},
	} {
		allowed.Store(c.allowed)
		if resp := post(c.base, c.origin, "", cancel); resp.StatusCode != c.want {
			t.Fatalf("%s: %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	allowed.Store(true)
	if resp := post(web.URL, origin, "", url.Values{"action": {"explode"}, "id": {req.ID}}); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown action: %d", resp.StatusCode)
	}
	if resp := post(web.URL, origin, "", url.Values{"action": {"cancel"}, "id": {"snodo/stdio$99/req$1"}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("no such node: %d", resp.StatusCode)
	}
	if resp := post(web.URL, origin, "", url.Values{"action": {"stop"}, "id": {req.ID}}); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("stopping a request: %d", resp.StatusCode)
	}
	select {
	case <-cancelled:
		t.Fatal("a refused action cancelled the request")
	default:
	}

	// A form from the page: done, and back to the page.
	if resp := post(web.URL, origin, "text/html", cancel); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("cancel: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	<-cancelled
	testkit.WaitNoRequests(t, sup)

	if resp := post(web.URL, "", "", url.Values{"action": {"stop"}, "id": {conn.ID}}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("stop: %d", resp.StatusCode)
	}
	if err := srv.Wait(t); !errors.Is(err, supervisor.ErrStoppedByOperator) {
		t.Fatalf("Serve returned %v", err)
	}
}
