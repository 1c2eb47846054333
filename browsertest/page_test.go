package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/chromedp/chromedp"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// roomActor is an application actor, shown with what it says of itself.
type roomActor struct{}

func (*roomActor) Receive(actor.Context) {}
func (*roomActor) Describe() map[string]string {
	return map[string]string{"room": "lobby", "members": "3"}
}

// chromium finds the browser; its absence fails the test, since the
// step that runs it installs it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on the PATH: install it (apt-get install -y chromium); this test does not skip")
	return ""
}

// TestPageInChromium loads the debug page of a server with traffic on
// stdio and HTTP, checks the nodes it shows, watches a request appear
// and end over the event stream, uses the search and a collapsed node,
// cancels a request with its button, and writes a screenshot to the
// test's temporary directory (and to $SNODO_PAGE_SCREENSHOT when set).
func TestPageInChromium(t *testing.T) {
	browser := chromium(t)

	entered := make(chan string, 8)
	releases := map[string]chan struct{}{"slow": make(chan struct{}), "report": make(chan struct{})}
	hold := func(name string) dispatch.Option {
		return dispatch.WithTool(mcp.Tool{Name: name}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			entered <- name
			select {
			case <-releases[name]:
				return mcp.TextResult("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	}
	hub := hub.New(hub.Options{})
	cancelled := make(chan struct{}, 1)
	stuck := dispatch.WithTool(mcp.Tool{Name: "stuck"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		entered <- "stuck"
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	rt, err := dispatch.New(mcp.Implementation{Name: "page", Version: "1"}, dispatch.WithSubscriptions(hub), hold("slow"), hold("report"), stuck)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sup.Spawn("lobby", actor.PropsFromProducer(func() actor.Actor { return &roomActor{} }), nil); err != nil {
		t.Fatal(err)
	}
	stdio := testkit.StartStdioWith(t, sup, rt)
	web := testfixture.StartHTTPWith(t, sup, rt)
	page, err := sup.DebugHandler(supervisor.WithPageLimits(supervisor.PageLimits{Interval: 100 * time.Millisecond}),
		supervisor.WithActions(func(*http.Request) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/tree", page)
	pageSrv := httptest.NewServer(mux)
	// The page's stream ends when the supervisor closes, before the
	// server does.
	t.Cleanup(pageSrv.Close)

	// Live traffic: a stdio request in flight and a subscription stream.
	stdio.Send(t, testkit.Request(1, "tools/call", map[string]any{"name": "slow"}))
	stdio.Send(t, testkit.Request("watch", dispatch.MethodListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	<-entered
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		return n.Count("request") == 1 && n.Count("subscription") == 1
	})

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 860),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	// The first action starts the browser, under the tab's own context
	// (a timeout there would stop the browser); the rest share a bound.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()

	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	count := func(sel string) int {
		t.Helper()
		n, _ := strconv.Atoi(eval(fmt.Sprintf(`String(document.querySelectorAll(%q).length)`, sel)))
		return n
	}
	seq := func() int {
		t.Helper()
		n, _ := strconv.Atoi(eval(`document.body.dataset.seq || "0"`))
		return n
	}
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }

	// The page loads and goes live.
	run("load", chromedp.Navigate(pageSrv.URL+"/debug/tree"),
		chromedp.WaitVisible(css(`#status[data-state="live"]`)),
		chromedp.WaitReady(css(`body[data-seq]`)))
	for sel, want := range map[string]int{
		`li[data-kind="supervisor"]`:                         1,
		`li[data-kind="connection"]`:                         1,
		`li[data-kind="writer"]`:                             1,
		`li[data-kind="listener"]`:                           1,
		`li[data-kind="subscription"]`:                       1,
		`li[data-kind="application"]`:                        1,
		`li[data-kind="actor"]`:                              1,
		`li[data-kind="executor"]`:                           1,
		`li[data-kind="connection"] li[data-kind="request"]`: 1,
		`#gauges .gauge[data-key="running"]`:                 1,
	} {
		if got := count(sel); got != want {
			t.Fatalf("%s: %d, want %d", sel, got, want)
		}
	}
	method := eval(`document.querySelector('li[data-kind="connection"] li[data-kind="request"] .a-method .v').textContent`)
	running := eval(`document.querySelector('#gauges .gauge[data-key="running"] dd').textContent`)
	if method != "tools/call" || running != "1" {
		t.Fatalf("request method %q, running %q", method, running)
	}

	// Collapse the writer's connection; it stays collapsed across
	// updates. (The connection's summary is its first.)
	run("collapse", chromedp.Click(css(`li[data-kind="connection"] > details > summary`)))

	// A request over HTTP starts: the page shows it without a reload.
	before := seq()
	var wg sync.WaitGroup
	wg.Go(func() {
		testfixture.PostMCP(t, &http.Client{Timeout: testkit.DefaultTimeout}, web.URL(), testkit.Request(2, "tools/call", map[string]any{"name": "report"}), nil)
	})
	<-entered
	run("request appears", chromedp.WaitVisible(css(`li[data-kind="listener"] li[data-kind="request"]`)))
	if seq() <= before {
		t.Fatal("the request appeared without a new event")
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#gauges .gauge[data-key="running"] dd').textContent === "2"`)); err != nil {
		t.Fatalf("running gauge: %v", err)
	}
	if eval(`String(document.querySelector('li[data-kind="connection"] > details').open)`) != "false" {
		t.Fatal("an update reopened a collapsed node")
	}
	run("expand", chromedp.Click(css(`#expand-all`)))

	shot := filepath.Join(t.TempDir(), "tree.png")
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if dst := os.Getenv("SNODO_PAGE_SCREENSHOT"); dst != "" {
		if err := os.WriteFile(dst, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))

	// The search hides what does not match, and keeps the ancestors of
	// what does.
	run("search", chromedp.SendKeys(css(`#q`), "toolsListChanged"))
	if n := count(`li[data-kind="writer"]:not(.hidden)`); n != 0 {
		t.Fatalf("the search left %d writers visible", n)
	}
	if n := count(`li[data-kind="subscription"].match`) + count(`li[data-kind="connection"]:not(.hidden)`); n != 2 {
		t.Fatalf("the search hid the match or its connection (%d)", n)
	}
	eval(`(function () { var q = document.getElementById("q"); q.value = ""; q.dispatchEvent(new Event("input")); return ""; })()`)

	// The request ends: the page drops it.
	close(releases["report"])
	wg.Wait()
	run("request ends", chromedp.WaitNotPresent(css(`li[data-kind="listener"] li[data-kind="request"]`)))
	close(releases["slow"])
	stdio.Client.AwaitResponse(t, "1")
	run("stdio request ends", chromedp.WaitNotPresent(css(`li[data-kind="request"]`)))
	if n := count(`li[data-kind="subscription"]`); n != 1 {
		t.Fatalf("%d subscriptions after the requests ended", n)
	}

	// An action from the page: the browser posts the form (with its
	// Origin), the request is cancelled as a client's cancellation
	// would, and the page comes back without it.
	stdio.Send(t, testkit.Request(3, "tools/call", map[string]any{"name": "stuck"}))
	<-entered
	run("cancel offered", chromedp.WaitVisible(css(`li[data-kind="connection"] li[data-kind="request"] form.action button`)))
	run("cancel", chromedp.Click(css(`li[data-kind="connection"] li[data-kind="request"] form.action button`)))
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the request was not cancelled")
	}
	run("cancelled request gone", chromedp.WaitNotPresent(css(`li[data-kind="request"]`)),
		chromedp.WaitVisible(css(`#status[data-state="live"]`)))

	cancel()
	cancelTab()
	cancelAlloc()
	stdio.Send(t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "watch"}))
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer closeCancel()
	if err := sup.Close(closeCtx); err != nil {
		t.Fatal(err)
	}
}
