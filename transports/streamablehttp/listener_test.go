package streamablehttp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// fullRequest renders a complete HTTP/1.1 request carrying frame.
func fullRequest(frame []byte) string {
	return rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame)
}

// trickle writes s one byte every interval until it is written, the
// connection fails, or the test ends. The test waits for it to stop.
func trickle(t *testing.T, c net.Conn, s string, interval time.Duration) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; i < len(s); i++ {
			if _, err := c.Write([]byte{s[i]}); err != nil {
				return
			}
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
}

func listenerNode(tree *supervisor.Node) *supervisor.Node {
	return testkit.Find(tree, "listener")
}

func TestListenerIsASupervisedChildOnLoopback(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil))
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || !strings.HasSuffix(srv.URL(), "/mcp") || strings.Contains(srv.URL(), ":0/") {
		t.Fatalf("URL %q", srv.URL())
	}
	tree := srv.Sup.Tree()
	node := listenerNode(tree)
	if node == nil || !strings.HasPrefix(node.ID, "snodo/http$") || node.Attrs["addr"] != srv.Addr().String() {
		t.Fatalf("listener node: %+v", tree)
	}
	if r := testfixture.PostMCP(t, nil, srv.URL(), discover(1), nil); r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
}

func TestClosingTheSupervisorStopsTheListener(t *testing.T) {
	rt := testRuntime(t, nil)
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithSupervisor(sup))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	<-srv.Done()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", srv.Addr().String()); err == nil {
		c.Close()
		t.Fatal("the listener still accepts connections")
	}
}

func TestServeRunsUntilTheContextEnds(t *testing.T) {
	rt := testRuntime(t, nil)
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- streamablehttp.Serve(ctx, rt, streamablehttp.WithSupervisor(sup)) }()
	tree := testkit.WaitTree(t, sup, func(n *supervisor.Node) bool { return listenerNode(n) != nil })
	url := "http://" + listenerNode(tree).Attrs["addr"] + "/mcp"
	if r := testfixture.PostMCP(t, nil, url, discover(1), nil); r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if listenerNode(sup.Tree()) != nil {
		t.Fatal("the listener is still in the tree")
	}
}

func TestConnectionOverTheCapIsClosedUnread(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxConnections: 2}))
	a, b := dial(t, srv.Addr().String()), dial(t, srv.Addr().String())
	_ = b
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "2" })
	over := dial(t, srv.Addr().String())
	_, _ = over.Write([]byte(fullRequest(discover(1))))
	if got := over.waitClosed(t); len(got) != 0 {
		t.Fatalf("a connection over the cap got %q", got)
	}
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["refused"] == "1" })
	if c := listenerNode(tree).Attrs["connections"]; c != "2" {
		t.Fatalf("%s connections counted", c)
	}
	// A slot frees when a connection closes.
	a.Close()
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "1" })
	c := dial(t, srv.Addr().String())
	if _, err := c.Write([]byte(fullRequest(discover(2)))); err != nil {
		t.Fatal(err)
	}
	if resp := c.readResponse(t); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestSlowHeadIsCutAtTheHeadTimeout(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{HeadTimeout: 200 * time.Millisecond}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: time.Minute}))
	c := dial(t, srv.Addr().String())
	// Each byte arrives well within the read timeout; the head never ends.
	trickle(t, c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "+strings.Repeat("a", 100000), 5*time.Millisecond)
	// net/http may answer the cut head with a bare 400 before closing;
	// the request is never served.
	if got := c.waitClosed(t); len(got) != 0 && !strings.HasPrefix(string(got), "HTTP/1.1 400 ") {
		t.Fatalf("got %q before the close", got)
	}
}

func TestStalledHeadIsCutAtTheReadTimeout(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{HeadTimeout: time.Minute}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: 100 * time.Millisecond}))
	c := dial(t, srv.Addr().String())
	if _, err := c.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := c.waitClosed(t); len(got) != 0 {
		t.Fatalf("got %q before the close", got)
	}
}

func TestSlowBodyGets408(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: 200 * time.Millisecond}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: time.Minute}))
	c := dial(t, srv.Addr().String())
	frame := discover(1)
	if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: 100000") + "\r\n")); err != nil {
		t.Fatal(err)
	}
	trickle(t, c, strings.Repeat(" ", 100000), 5*time.Millisecond)
	reply := testfixture.ReadHTTPReply(t, c.readResponse(t), "")
	if reply.Status != http.StatusRequestTimeout || reply.Last() == nil || reply.Last().Error.Code != -32600 {
		t.Fatalf("%d %s", reply.Status, reply.Body)
	}
}

func TestStalledBodyGets408AtTheReadTimeout(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithLimits(streamablehttp.Limits{BodyTimeout: time.Minute}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: 100 * time.Millisecond}))
	c := dial(t, srv.Addr().String())
	frame := discover(1)
	if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame[:10]))); err != nil {
		t.Fatal(err)
	}
	reply := testfixture.ReadHTTPReply(t, c.readResponse(t), "")
	if reply.Status != http.StatusRequestTimeout {
		t.Fatalf("%d %s", reply.Status, reply.Body)
	}
}

func TestHeadOverTheLimitGets431(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxHeaderBytes: 8192}))
	frame := discover(1)
	small := dial(t, srv.Addr().String())
	if _, err := small.Write([]byte(rawRequest("/mcp", frame, "X-Pad: "+strings.Repeat("a", 6000), "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame))); err != nil {
		t.Fatal(err)
	}
	if resp := small.readResponse(t); resp.StatusCode != 200 {
		t.Fatalf("a head under the limit: %d", resp.StatusCode)
	}
	big := dial(t, srv.Addr().String())
	if _, err := big.Write([]byte(rawRequest("/mcp", frame, "X-Pad: "+strings.Repeat("a", 10000), "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame))); err != nil {
		t.Fatal(err)
	}
	if resp := big.readHead(t); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a head over the limit: %d", resp.StatusCode)
	}
}

func TestKeepAliveReusesConnectionsAndBoundsEachRequest(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil),
		streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{HeadTimeout: 300 * time.Millisecond}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: 100 * time.Millisecond}))
	// A Go client reuses its connection.
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	reused := 0
	for i := range 3 {
		var got bool
		trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) { got = ci.Reused }}
		r := testfixture.PostMCP(t, client, srv.URL(), discover(i), func(r *http.Request) {
			*r = *r.WithContext(httptrace.WithClientTrace(r.Context(), trace))
		})
		if r.Status != 200 {
			t.Fatalf("status %d", r.Status)
		}
		if got {
			reused++
		}
	}
	if reused != 2 {
		t.Fatalf("%d of 2 later requests reused the connection", reused)
	}

	// Waiting for the next request is bounded by the idle timeout, not
	// the read timeout; the next request's head is bounded again.
	c := dial(t, srv.Addr().String())
	if _, err := c.Write([]byte(fullRequest(discover(1)))); err != nil {
		t.Fatal(err)
	}
	if resp := c.readResponse(t); resp.StatusCode != 200 {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
	time.Sleep(250 * time.Millisecond) // idle for longer than the read timeout
	if _, err := c.Write([]byte(fullRequest(discover(2)))); err != nil {
		t.Fatal(err)
	}
	if resp := c.readResponse(t); resp.StatusCode != 200 {
		t.Fatalf("request after an idle wait: %d", resp.StatusCode)
	}
	if _, err := c.Write([]byte("POST /mcp HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := c.waitClosed(t); len(got) != 0 {
		t.Fatalf("a stalled third head got %q", got)
	}
}

func TestDrainGivesUpAtTheDrainTimeout(t *testing.T) {
	g := newGate()
	srv := testfixture.StartHTTP(t, testRuntime(t, g), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{DrainTimeout: 100 * time.Millisecond}))
	errc := make(chan error, 1)
	go func() {
		req, _ := testfixture.NewMCPRequest(context.Background(), srv.URL(), call(1, "hold", nil))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	waitFor(t, g.entered)
	err := srv.Shutdown(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if id := waitFor(t, g.cancelled); id != "1" {
		t.Fatalf("cancelled %s", id)
	}
	if err := <-errc; err == nil {
		t.Fatal("the held request got a response after the drain gave up")
	}
	if listenerNode(srv.Sup.Tree()) != nil {
		t.Fatal("the listener is still in the tree")
	}
}

func TestDrainClosesConnectionsNotYetRead(t *testing.T) {
	g := newGate()
	srv := testfixture.StartHTTP(t, testRuntime(t, g))
	idle := dial(t, srv.Addr().String()) // connected, no request sent yet
	held := make(chan *testfixture.HTTPReply, 1)
	go func() { held <- testfixture.PostMCP(t, nil, srv.URL(), call(1, "hold", nil), nil) }()
	waitFor(t, g.entered)
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "2" })

	drained := make(chan error, 1)
	go func() { drained <- srv.Shutdown(context.Background()) }()
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["state"] == "draining" })
	close(g.release) // the request in flight finishes first...
	if r := <-held; r.Status != 200 {
		t.Fatalf("in-flight request: %d", r.Status)
	}
	// ...then the connection that asked nothing is closed, with nothing
	// written to it: an unsolicited 503 would be read by a keep-alive
	// client as a response to no request.
	if got := idle.waitClosed(t); len(got) != 0 {
		t.Fatalf("the idle connection was sent %q", got)
	}
	if err := <-drained; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
