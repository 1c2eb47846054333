package supervisor_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"golang.org/x/net/html"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/sse"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

// topicActor is an application actor that describes itself with a value
// that must reach the page as text, never as markup.
type topicActor struct{}

func (topicActor) Receive(actor.Context) {}
func (topicActor) Describe() map[string]string {
	return map[string]string{"members": "3", "topic": `<script>alert("x")</script>`}
}

// liveServer is a server with two requests in flight (one on stdio, one
// over HTTP), a subscription stream open on stdio and an application
// actor; release lets the requests finish.
type liveServer struct {
	sup     *supervisor.Supervisor
	stdio   *testkit.StdioServer
	release func()
}

func startLiveServer(t *testing.T) *liveServer {
	t.Helper()
	entered := make(chan struct{}, 8)
	release := make(chan struct{})
	hub := hub.New(hub.Options{})
	rt := quietRuntime(t, dispatch.WithSubscriptions(hub),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			entered <- struct{}{}
			select {
			case <-release:
				return mcp.TextResult("released"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	sup := newSupervisor(t)
	if _, err := sup.Spawn("room", actor.PropsFromProducer(func() actor.Actor { return topicActor{} }), nil); err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartStdioWith(t, sup, rt)
	web := testfixture.StartHTTPWith(t, sup, rt)
	srv.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "hold"}))
	srv.Send(t, testkit.Request("sub", dispatch.MethodListen, map[string]any{"notifications": map[string]any{
		"toolsListChanged": true, "resourceSubscriptions": []string{"file:///a"},
	}}))
	var wg sync.WaitGroup
	wg.Go(func() {
		testfixture.PostMCP(t, &http.Client{Timeout: testkit.DefaultTimeout}, web.URL(), testkit.Request(3, "tools/call", map[string]any{"name": "hold"}), nil)
	})
	for range 2 {
		<-entered
	}
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("request") == 2 && n.Count("subscription") == 1
	})
	var once sync.Once
	ls := &liveServer{sup: sup, stdio: srv, release: func() {
		once.Do(func() {
			close(release)
			wg.Wait()
			srv.Client.AwaitResponse(t, "1")
			srv.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "sub"}))
			testkit.WaitNoRequests(t, sup)
		})
	}}
	t.Cleanup(ls.release)
	return ls
}

// getPage fetches url as a browser would and parses the page.
func getPage(t *testing.T, url string) (*http.Response, *html.Node) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, doc
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, c string) bool {
	v, _ := attr(n, "class")
	for f := range strings.FieldsSeq(v) {
		if f == c {
			return true
		}
	}
	return false
}

// all returns the elements under n (n included) that match.
func all(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	if n.Type == html.ElementNode && match(n) {
		out = append([]*html.Node{n}, out...)
	}
	return out
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// nodesOf returns the tree nodes (li elements) of kind k.
func nodesOf(doc *html.Node, k supervisor.Kind) []*html.Node {
	return all(doc, func(n *html.Node) bool {
		v, ok := attr(n, "data-kind")
		return n.Data == "li" && ok && v == string(k)
	})
}

// ownAttrs returns the attributes a tree node shows on its own line.
func ownAttrs(li *html.Node) map[string]string {
	out := map[string]string{}
	var line *html.Node
	for c := range li.ChildNodes() {
		switch {
		case c.Data == "div":
			line = c
		case c.Data == "details":
			line = all(c, tag("summary"))[0]
		}
	}
	if line == nil {
		return out
	}
	for c := range line.ChildNodes() {
		if c.Type == html.ElementNode && hasClass(c, "attr") {
			k := all(c, func(n *html.Node) bool { return hasClass(n, "k") })[0]
			v := all(c, func(n *html.Node) bool { return hasClass(n, "v") })[0]
			out[text(k)] = text(v)
		}
	}
	return out
}

func isAncestor(a, n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// dlValues returns the dt → dd pairs of the dl with id.
func dlValues(doc *html.Node, id string) map[string]string {
	out := map[string]string{}
	for _, dl := range all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return n.Data == "dl" && v == id }) {
		for _, div := range all(dl, tag("div")) {
			out[text(all(div, tag("dt"))[0])] = text(all(div, tag("dd"))[0])
		}
	}
	return out
}

// The page without a browser: the static snapshot a reader with
// JavaScript off gets, parsed with an HTML5 parser.
func TestPageStaticSnapshot(t *testing.T) {
	ls := startLiveServer(t)
	// Each load takes a snapshot of its own (by default loads within
	// half a second share one).
	h, err := ls.sup.DebugHandler(supervisor.WithPageLimits(supervisor.PageLimits{Interval: time.Nanosecond}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, doc := getPage(t, srv.URL)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Vary") != "Accept" {
		t.Fatalf("page: %d %v", resp.StatusCode, resp.Header)
	}
	csp := resp.Header.Get("Content-Security-Policy")

	// Self-contained: one inline style and one inline script, allowed by
	// their hashes; nothing loaded from anywhere.
	for _, tagName := range []string{"style", "script"} {
		els := all(doc, tag(tagName))
		if len(els) != 1 {
			t.Fatalf("%d %s elements: an attribute value became markup?", len(els), tagName)
		}
		if _, ok := attr(els[0], "src"); ok {
			t.Fatalf("%s with a src", tagName)
		}
		sum := sha256.Sum256([]byte(text(els[0])))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, tagName+"-src "+h) {
			t.Fatalf("the %s's hash %s is not in the CSP %q", tagName, h, csp)
		}
	}
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href") || strings.Contains(a.Val, "://") {
				t.Fatalf("<%s %s=%q>: the page refers to something outside it", n.Data, a.Key, a.Val)
			}
		}
		if n.Data == "link" {
			t.Fatal("a link element")
		}
	}

	// The header: counts of the whole tree and the executor's gauges.
	counts := dlValues(doc, "counts")
	if counts["request"] != "2" || counts["subscription"] != "1" || counts["connection"] != "1" || counts["actor"] != "1" {
		t.Fatalf("counts: %v", counts)
	}
	gauges := dlValues(doc, "gauges")
	if gauges["running"] != "2" || gauges["subscriptions"] != "1" || gauges["max concurrency"] == "" || gauges["submitted"] == "" {
		t.Fatalf("gauges: %v", gauges)
	}

	// Every node, nested as in the tree, with what an operator reads.
	conns := nodesOf(doc, "connection")
	listeners := nodesOf(doc, "listener")
	if len(conns) != 1 || len(listeners) != 1 || len(nodesOf(doc, "writer")) != 1 || len(nodesOf(doc, "executor")) != 1 {
		t.Fatalf("connections %d, listeners %d", len(conns), len(listeners))
	}
	reqs := nodesOf(doc, "request")
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	held := 0
	for _, r := range reqs {
		a := ownAttrs(r)
		if a["age"] == "" {
			t.Fatalf("request without its age: %v", a)
		}
		if a["method"] == "tools/call" {
			held++
			if a["deadline"] == "" || a["state"] != "running" {
				t.Fatalf("request %v", a)
			}
			if !isAncestor(conns[0], r) && !isAncestor(listeners[0], r) {
				t.Fatal("a request outside its connection or listener")
			}
		}
	}
	if held != 2 {
		t.Fatalf("%d tools/call requests", held)
	}
	subs := nodesOf(doc, "subscription")
	if len(subs) != 1 || !isAncestor(conns[0], subs[0]) {
		t.Fatal("no subscription under the connection")
	}
	if a := ownAttrs(subs[0]); a["toolsListChanged"] != "true" || a["id"] != `"sub"` {
		t.Fatalf("subscription filter: %v", a)
	}
	actors := nodesOf(doc, "actor")
	if len(actors) != 1 || len(nodesOf(doc, "application")) != 1 {
		t.Fatal("no application actor")
	}
	if a := ownAttrs(actors[0]); a["topic"] != `<script>alert("x")</script>` || a["members"] != "3" {
		t.Fatalf("actor attributes (as text): %v", a)
	}

	// Collapsible, and open without a script; a search form; no action
	// unless the application enables them.
	details := all(doc, tag("details"))
	if len(details) < 4 {
		t.Fatalf("%d collapsible nodes", len(details))
	}
	for _, d := range details {
		if _, open := attr(d, "open"); !open {
			t.Fatal("a node closed without a script to open it")
		}
	}
	if len(all(doc, func(n *html.Node) bool { v, _ := attr(n, "name"); return n.Data == "input" && v == "q" })) != 1 {
		t.Fatal("no search box")
	}
	if n := len(all(doc, func(n *html.Node) bool { return n.Data == "form" && hasClass(n, "action") })); n != 0 {
		t.Fatalf("%d actions on a read-only page", n)
	}

	// The search, on the server: the matching nodes and their
	// ancestors only.
	_, doc = getPage(t, srv.URL+"?q=toolsListChanged")
	if len(nodesOf(doc, "subscription")) != 1 || len(nodesOf(doc, "connection")) != 1 ||
		len(nodesOf(doc, "writer")) != 0 || len(nodesOf(doc, "listener")) != 0 {
		t.Fatal("the search kept nodes that do not match")
	}
	_, doc = getPage(t, srv.URL+"?q=nothing-matches-this")
	if len(nodesOf(doc, "supervisor")) != 0 || len(all(doc, func(n *html.Node) bool { return hasClass(n, "empty") })) != 1 {
		t.Fatal("a search matching nothing")
	}

	ls.release()
	_, doc = getPage(t, srv.URL)
	if n := len(nodesOf(doc, "request")); n != 0 {
		t.Fatalf("%d requests after they ended", n)
	}
}

// One path, every rendering: JSON unless the client asks for the page or
// the stream, as before the page existed.
func TestHandlerNegotiates(t *testing.T) {
	sup := newSupervisor(t)
	srv := httptest.NewServer(sup.Handler())
	defer srv.Close()
	get := func(q, accept string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+q, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, c := range []struct{ q, accept, want string }{
		{"", "", "application/json"},
		{"", "*/*", "application/json"},
		{"", "application/json", "application/json"},
		{"", "text/html;q=0, application/json", "application/json"},
		{"", "text/html", "text/html; charset=utf-8"},
		{"?format=html", "", "text/html; charset=utf-8"},
		{"?format=text", "text/html", "text/plain; charset=utf-8"},
		{"?format=json", "text/html", "application/json"},
	} {
		resp := get(c.q, c.accept)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || got != c.want {
			t.Errorf("%q Accept %q: %d %s, want %s", c.q, c.accept, resp.StatusCode, got, c.want)
		}
		if c.want == "application/json" {
			var n supervisor.Node
			if err := json.Unmarshal(b, &n); err != nil || n.ID != "snodo" {
				t.Errorf("%q Accept %q: %v", c.q, c.accept, err)
			}
		}
	}
	for _, q := range []string{"", "?format=events"} {
		accept := "text/event-stream"
		if q != "" {
			accept = ""
		}
		resp := get(q, accept)
		ev, err := sse.NewReader(resp.Body, 1<<20).Next()
		resp.Body.Close()
		var v struct {
			Seq    int64                   `json:"seq"`
			Counts map[supervisor.Kind]int `json:"counts"`
		}
		if err != nil || resp.Header.Get("Content-Type") != "text/event-stream" || ev.Type != "tree" || json.Unmarshal(ev.Data, &v) != nil || v.Counts["executor"] != 1 {
			t.Fatalf("stream %q: %v %+v", q, err, ev)
		}
	}
	var b strings.Builder
	if err := sup.Render(&b, "html"); err != nil || !strings.Contains(b.String(), `data-kind="executor"`) {
		t.Fatalf("Render html: %v", err)
	}
	if err := sup.Render(&b, "events"); err == nil {
		t.Fatal("Render wrote an event stream")
	}
}

// countedActor is an application actor with nothing to say.
type countedActor struct{}

func (countedActor) Receive(actor.Context) {}

// A real tree wider than the cap: the page shows the stated number of
// children and counts the rest, in the page and in its stream.
func TestPageCapsARealTree(t *testing.T) {
	sup := newSupervisor(t)
	const actors = 400
	for i := range actors {
		if _, err := sup.Spawn(fmt.Sprintf("a%d", i), actor.PropsFromProducer(func() actor.Actor { return countedActor{} }), nil); err != nil {
			t.Fatal(err)
		}
	}
	h, err := sup.DebugHandler(supervisor.WithPageLimits(supervisor.PageLimits{MaxChildren: 30, MaxNodes: 100}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, doc := getPage(t, srv.URL)
	if n := len(nodesOf(doc, "actor")); n != 30 {
		t.Fatalf("%d actors shown, want 30", n)
	}
	if counts := dlValues(doc, "counts"); counts["actor"] != "400" {
		t.Fatalf("counts: %v", counts)
	}
	more := all(doc, func(n *html.Node) bool { return hasClass(n, "more") })
	if len(more) != 1 || text(more[0]) != "370 more of 400 not shown: 370 actor" {
		t.Fatalf("what is left out: %d %v", len(more), more)
	}

	resp, err := http.Get(srv.URL + "?format=events")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sse.NewReader(resp.Body, 64<<10).Next()
	resp.Body.Close()
	if err != nil {
		t.Fatalf("an event of a 400-actor tree over 64 KiB: %v", err)
	}
	var v struct {
		Nodes, Shown int
	}
	if err := json.Unmarshal(ev.Data, &v); err != nil || v.Nodes != actors+3 || v.Shown > 100 {
		t.Fatalf("view: %+v %v", v, err)
	}
}
