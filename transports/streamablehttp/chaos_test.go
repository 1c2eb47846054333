package streamablehttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// chaosRuntime serves the probe's tools, echo (for the bystander), and,
// subscriptions/listen from a hub of its own.
func chaosRuntime(t testing.TB, p *testfixture.Probe, extra ...dispatch.Option) *dispatch.Runtime {
	t.Helper()
	opts := append(p.Options(), dispatch.WithLogger(quiet()), dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(string(req.Arguments)), nil
		}))
	rt, err := dispatch.New(mcp.Implementation{Name: "chaos", Version: "1"}, append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// attr reads a numeric attribute of n; -1 when n is missing.
func attr(n *supervisor.Node, key string) int {
	if n == nil {
		return -1
	}
	v, err := strconv.Atoi(n.Attrs[key])
	if err != nil {
		return -1
	}
	return v
}

// readUntilClosed reads c until the server closes it and reports what
// it sent and when it closed; timedOut is true when it never did.
func readUntilClosed(c net.Conn) (got []byte, at time.Time, timedOut bool) {
	_ = c.SetReadDeadline(time.Now().Add(testkit.DefaultTimeout + 5*time.Second))
	got, err := io.ReadAll(c)
	var ne net.Error
	return got, time.Now(), errors.As(err, &ne) && ne.Timeout()
}

// A slow-loris crowd: 1,000 connections that each send part of a head
// and then nothing, held open together. Each is closed at the head
// timeout, unanswered (or with net/http's bare 400), while another
// client is served normally throughout.
//
// The server starts a connection's head timeout when it accepts the
// connection, at a moment the test cannot see: no earlier than the dial
// began, and no later than the moment the listener counted the whole
// crowd. Each close is timed against both ends of that window, by a
// reader waiting on the connection from the moment it is dialed, so that
// neither the server accepting slowly on a loaded machine nor the test
// getting round to reading late counts against the server.
func TestChaosSlowLorisCrowd(t *testing.T) {
	const crowd = 1000
	// The default head timeout: the server must accept the whole crowd in
	// less, or its first connections would be closed before its last were
	// accepted, and a loaded machine with the race detector takes seconds.
	const headTimeout = streamablehttp.DefaultHeadTimeout
	// closeSlack is how long after its head timeout a connection may be
	// seen closed: the server's deadline firing, the close, and the
	// reader being scheduled.
	const closeSlack = 10 * time.Second
	srv := testfixture.StartHTTP(t, chaosRuntime(t, testfixture.NewProbe()),
		streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{HeadTimeout: headTimeout}), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{ReadTimeout: time.Minute}))

	type closed struct {
		got              []byte
		dialed, closedAt time.Time
		timedOut         bool
	}
	results := make([]closed, crowd)
	var wg sync.WaitGroup
	for i := range crowd {
		// The time before the dial is the earliest the server can have
		// accepted the connection and started its head timeout.
		dialed := time.Now()
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatalf("dialing connection %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := c.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			// The read deadline only keeps a server that never closes
			// the connection from hanging the test; the bounds are
			// checked below.
			_ = c.SetReadDeadline(time.Now().Add(2*headTimeout + time.Minute))
			got, err := io.ReadAll(c)
			var ne net.Error
			results[i] = closed{got, dialed, time.Now(), errors.As(err, &ne) && ne.Timeout()}
		})
	}
	// The whole crowd is in, and a well-behaved client is served beside it.
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return attr(listenerNode(n), "connections") >= crowd })
	allIn := time.Now() // the latest the server can have accepted any of the crowd
	others := startBystander(t, srv.URL())
	if r := testfixture.PostMCP(t, nil, srv.URL(), discover(1), nil); r.Status != 200 {
		t.Fatalf("a client beside the crowd: %d", r.Status)
	}
	wg.Wait()
	others.check(t)
	for i, r := range results {
		switch {
		case r.timedOut:
			t.Fatalf("connection %d was never closed", i)
		case len(r.got) > 0 && !strings.HasPrefix(string(r.got), "HTTP/1.1 400 "):
			t.Fatalf("connection %d got %q", i, r.got)
		case r.closedAt.Sub(r.dialed) < headTimeout*9/10:
			t.Fatalf("connection %d was closed %v after its dial began, before the %v head timeout", i, r.closedAt.Sub(r.dialed), headTimeout)
		case r.closedAt.Sub(allIn) > headTimeout+closeSlack:
			t.Fatalf("connection %d was closed %v after the whole crowd was in (head timeout %v)", i, r.closedAt.Sub(allIn), headTimeout)
		}
	}
	http.DefaultClient.CloseIdleConnections() // PostMCP's kept-alive connection
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return attr(listenerNode(n), "connections") == 0 })
}

// A flood of connections beyond the cap: those over it are closed
// unread, the others are served, a client already connected is served
// throughout, and the count of connections returns to what it was.
func TestChaosConnectionFlood(t *testing.T) {
	const capacity, flood = 32, 400
	srv := testfixture.StartHTTP(t, chaosRuntime(t, testfixture.NewProbe()), streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{MaxConnections: capacity}))
	// The bystander holds one kept-alive connection from before the flood.
	others := startBystander(t, srv.URL())
	testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return attr(listenerNode(n), "connections") == 1 })

	var wg sync.WaitGroup
	var mu sync.Mutex
	served, refused := 0, 0
	for i := range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer c.Close()
			frame := discover(i)
			_, _ = c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame)), "Connection: close") + "\r\n" + string(frame)))
			got, _, timedOut := readUntilClosed(c)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case timedOut:
				t.Errorf("flood connection %d was neither served nor closed", i)
			case len(got) == 0:
				refused++
			case strings.HasPrefix(string(got), "HTTP/1.1 200 "):
				served++
			default:
				t.Errorf("flood connection %d got %.100q", i, got)
			}
		}()
	}
	wg.Wait()
	others.check(t)
	tree := testkit.WaitTree(t, srv.Sup, func(n *supervisor.Node) bool { return attr(listenerNode(n), "connections") == 0 })
	if served+refused != flood || refused == 0 || served == 0 {
		t.Fatalf("%d served and %d refused of %d", served, refused, flood)
	}
	if n := attr(listenerNode(tree), "refused"); n < refused {
		t.Fatalf("the listener counted %d refusals; clients saw %d", n, refused)
	}
	t.Logf("%d served, %d closed unread", served, refused)
}

// Clients that disconnect in the middle of event streams (progress
// streams and subscription streams): every handler sees its client
// leave, every request actor and subscription actor stops, every
// subscription slot returns, and others are served meanwhile.
func TestChaosDisconnectsMidStream(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		probe := testfixture.NewProbe()
		t.Cleanup(probe.ReleaseAll)
		ep := tg.start(t, chaosRuntime(t, probe))
		others := startBystander(t, ep.url)
		const progress, listens = 40, 20
		var wg sync.WaitGroup
		for i := range progress + listens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				tag := fmt.Sprintf("s%d", i)
				frame := testfixture.ProbeCall(tag, "probe_progress_hold", tag, 0)
				if i >= progress {
					frame = listenFrame(tag)
				}
				req, err := testfixture.NewMCPRequest(ctx, ep.url, frame)
				if err != nil {
					t.Error(err)
					return
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("%s: %v", tag, err)
					return
				}
				defer resp.Body.Close()
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
					t.Errorf("%s: %d %s", tag, resp.StatusCode, resp.Header.Get("Content-Type"))
					return
				}
				if _, _, err := testfixture.NewSSEReader(resp.Body).Next(); err != nil {
					t.Errorf("%s: first event: %v", tag, err)
				}
				cancel() // gone, mid-stream
			}()
		}
		wg.Wait()
		for i := range progress {
			g := probe.Gate(fmt.Sprintf("s%d", i))
			select {
			case <-g.Cancelled:
			case <-time.After(testkit.DefaultTimeout):
				t.Fatalf("stream s%d: the handler never saw its client leave", i)
			}
		}
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			e := testkit.Find(n, "executor")
			return n.Count("request")+n.Count("subscription") == 0 &&
				e != nil && e.Attrs["running"] == "0" && e.Attrs["subscriptions"] == "0"
		})
		others.check(t)
	})
}

// Handlers panicking under load: many clients at once, a third of the
// calls panic. Each gets exactly one answer (500 with -32603 for a
// panic), the others are served, and the tree empties.
func TestChaosPanicsUnderLoad(t *testing.T) {
	forEachTarget(t, func(t *testing.T, tg target) {
		probe := testfixture.NewProbe()
		ep := tg.start(t, chaosRuntime(t, probe))
		const clients, calls = 12, 25
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Transport: &http.Transport{}}
				defer client.CloseIdleConnections()
				for i := range calls {
					tag := fmt.Sprintf("c%d-%d", c, i)
					tool, status := "probe_echo", 200
					switch i % 3 {
					case 0:
						tool, status = "probe_panic", 500
					case 1:
						tool = "probe_slow"
					}
					w := &httpWorker{t: t, client: client, url: ep.url}
					resp, err := w.post(context.Background(), tool, tag, i%3)
					ok := isText(tag)
					if status == 500 {
						ok = isError(-32603)
					}
					w.expectOne(tool, tag, status, resp, err, 0, ok)
				}
			}()
		}
		wg.Wait()
		probe.WaitReturned(t)
		testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool {
			e := testkit.Find(n, "executor")
			return n.Count("request") == 0 && e != nil && e.Attrs["running"] == "0"
		})
	})
}

// An owner that dies with queued work: two handlers share an executor of
// two workers; one fills it with held calls and queues more behind them,
// then is closed. Its queued calls never run, its running ones see
// their cancellation, each of its clients gets one answer (503), and the
// other handler serves on the freed executor.
func TestChaosOwnerDiesWithQueuedWork(t *testing.T) {
	probe := testfixture.NewProbe()
	t.Cleanup(probe.ReleaseAll)
	rt := chaosRuntime(t, probe)
	sup := limitedSupervisor(t, rt, supervisor.Limits{MaxConcurrency: 2, MaxQueue: 100})
	dying := newHandler(t, rt, streamablehttp.WithSupervisor(sup))
	dyingSrv := mount(t, dying, func() *http.ServeMux { m := http.NewServeMux(); m.Handle("/mcp", dying); return m }())
	survivor := newHandler(t, rt, streamablehttp.WithSupervisor(sup))
	survivorSrv := mount(t, survivor, func() *http.ServeMux { m := http.NewServeMux(); m.Handle("/mcp", survivor); return m }())

	type answer struct {
		tag    string
		status int
	}
	answers := make(chan answer, 64)
	post := func(url, tool, tag string) {
		w := &httpWorker{t: t, client: http.DefaultClient, url: url}
		resp, err := w.post(context.Background(), tool, tag, 0)
		if err != nil {
			t.Errorf("%s: %v", tag, err)
			answers <- answer{tag, 0}
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answers <- answer{tag, resp.StatusCode}
	}
	for i := range 2 {
		go post(dyingSrv.URL+"/mcp", "probe_hold", fmt.Sprintf("run%d", i))
	}
	for i := range 2 {
		waitClosedGate(t, probe.Gate(fmt.Sprintf("run%d", i)).Entered, "a held call's start")
	}
	const queued = 20
	for i := range queued {
		go post(dyingSrv.URL+"/mcp", "probe_echo", fmt.Sprintf("q%d", i))
	}
	testkit.WaitTree(t, streamablehttp.HandlerSupervisor(dying), func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return e != nil && e.Attrs["queued"] == strconv.Itoa(queued)
	})
	go post(survivorSrv.URL+"/mcp", "probe_echo", "s0") // queued behind the dying handler's work

	if err := dying.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		waitClosedGate(t, probe.Gate(fmt.Sprintf("run%d", i)).Cancelled, "a running call seeing its owner die")
	}
	got := map[string]int{}
	for range 2 + queued + 1 {
		select {
		case a := <-answers:
			got[a.tag] = a.status
		case <-time.After(testkit.DefaultTimeout):
			t.Fatalf("clients still waiting; answers so far %v", got)
		}
	}
	for tag, status := range got {
		if want := http.StatusServiceUnavailable; tag != "s0" && status != want {
			t.Errorf("%s: %d, want %d", tag, status, want)
		}
	}
	if got["s0"] != 200 {
		t.Errorf("the survivor's call: %d", got["s0"])
	}
	for i := range queued {
		select {
		case <-probe.Gate(fmt.Sprintf("q%d", i)).Entered:
			t.Errorf("queued call q%d ran after its owner died", i)
		default:
		}
	}
	w := &httpWorker{t: t, client: http.DefaultClient, url: survivorSrv.URL + "/mcp"}
	resp, err := w.post(context.Background(), "probe_echo", "s1", 0)
	w.expectOne("echo", "s1", 200, resp, err, 0, isText("s1"))
	probe.WaitReturned(t)
	// A slot frees just after its handler returns.
	testkit.WaitTree(t, streamablehttp.HandlerSupervisor(survivor), func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return e != nil && e.Attrs["running"] == "0" && e.Attrs["queued"] == "0"
	})
}

func waitClosedGate(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatalf("%s never happened", what)
	}
}

// smallBuffers makes accepted connections' send buffers small, so that a
// client that stops reading blocks the server's writes quickly.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A client that stops reading an event stream: the server's writes block
// once the socket buffers fill, the write timeout ends the stream, the
// handler's next notification fails (its context ends), and the request
// is gone, while other clients are served.
func TestChaosStalledReaderHitsTheWriteTimeout(t *testing.T) {
	const writeTimeout = 200 * time.Millisecond
	flooding := make(chan error, 1)
	rt := chaosRuntime(t, testfixture.NewProbe(), dispatch.WithLimits(dispatch.Limits{MaxProgressUpdates: 100_000, MaxProgressMessageBytes: 4096}),
		dispatch.WithTool(mcp.Tool{Name: "flood"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			msg := strings.Repeat("x", 4000)
			for i := 1; ; i++ {
				if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Message: msg}); err != nil {
					flooding <- err
					return nil, err
				}
			}
		}))
	h := newHandler(t, rt, streamablehttp.WithPath("/mcp"), streamablehttp.WithLimits(streamablehttp.Limits{WriteTimeout: writeTimeout}))
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("closing handler: %v", err)
		}
	})
	others := startBystander(t, ts.URL+"/mcp")

	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	frame := testkit.Request("f", "tools/call", map[string]any{"name": "flood", "_meta": map[string]any{"progressToken": "f"}})
	if _, err := c.Write([]byte(rawRequest("/mcp", frame, "Content-Length: "+itoa(len(frame))) + "\r\n" + string(frame))); err != nil {
		t.Fatal(err)
	}
	// Read a little, then stop reading.
	if _, err := io.ReadFull(c, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	stalled := time.Now()
	select {
	case err := <-flooding:
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Logf("the handler's notification failed with %v", err)
		}
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the stalled stream never failed")
	}
	if d := time.Since(stalled); d > writeTimeout+5*time.Second {
		t.Fatalf("the stream failed %v after the client stopped reading (write timeout %v)", d, writeTimeout)
	}
	testkit.WaitNoRequests(t, streamablehttp.HandlerSupervisor(h))
	others.check(t)
}
