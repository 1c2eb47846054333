package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// TestCommandStopsAStubbornServer: a server that ignores the end of its
// input and SIGTERM is killed; Close returns only once it is gone.
func TestCommandStopsAStubbornServer(t *testing.T) {
	tr := serverCommand(t, "stubborn")
	tr.GracePeriod = 100 * time.Millisecond
	pids := make(chan int, 1)
	conn, err := tr.Connect(context.Background(), clientconn.Peer{Trace: func(sent bool, frame []byte) {
		var p struct{ PID int }
		if !sent && json.Unmarshal(frame, &p) == nil && p.PID > 0 {
			pids <- p.PID
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	select {
	case pid = <-pids:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not start")
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d outlived Close: %v", pid, err)
	}
}

// TestCommandReconnectsAfterHangUp: a server that exits on the
// server/discover probe is started again and spoken to with initialize.
func TestCommandReconnectsAfterHangUp(t *testing.T) {
	c := connect(t, serverCommand(t, "legacy-hangup"))
	if v := c.Server().ProtocolVersion; v != mcp.Version20251125 {
		t.Fatalf("negotiated %q", v)
	}
	if c.Server().Implementation.Name != "old" {
		t.Fatalf("server %+v", c.Server())
	}
}

func TestCommandServerThatExits(t *testing.T) {
	_, err := client.New(context.Background(), serverCommand(t, "exit"))
	if !errors.Is(err, client.ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	_, err = client.New(context.Background(), &client.CommandTransport{Path: "/nonexistent/mcp-server"})
	if err == nil {
		t.Fatal("a missing program connected")
	}
}

// TestClosedClient: calls after Close fail with ErrClosed; calls in
// flight end with it.
func TestClosedClient(t *testing.T) {
	c := connect(t, commandTransport(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "block", nil)
		done <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		// The call either never went out or was cut off.
		if !errors.Is(err, client.ErrClosed) {
			t.Fatalf("call in flight: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight did not end")
	}
	if _, err := c.ListTools(context.Background()); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestStreamFrameTooLarge(t *testing.T) {
	_, tr := startFake(t, modern(func(f *fake, m *jsonrpc.Message) {
		f.reply(m.ID, complete(map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 4096)}}}))
	}))
	tr.MaxLineBytes = 2048
	c := connect(t, tr)
	if _, err := c.CallTool(context.Background(), "big", nil); !errors.Is(err, client.ErrFrameTooLarge) {
		t.Fatalf("want ErrFrameTooLarge, got %v", err)
	}
}

func TestHTTPResponseTooLarge(t *testing.T) {
	_, url := startWireServer(t)
	h := &client.HTTPTransport{URL: url}
	h.MaxResponseBytes = 1024
	c := connect(t, h)
	if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": strings.Repeat("y", 2048)}); !errors.Is(err, client.ErrFrameTooLarge) {
		t.Fatalf("JSON body: want ErrFrameTooLarge, got %v", err)
	}
	// An event stream is bounded as a whole too.
	if _, err := c.CallTool(context.Background(), "progress", map[string]any{"n": 40}, client.WithProgress(func(mcp.Progress) {})); !errors.Is(err, client.ErrFrameTooLarge) {
		t.Fatalf("event stream: want ErrFrameTooLarge, got %v", err)
	}
}

// TestHTTPLegacyServer: a server of the initialize era refuses the probe
// with a plain 400; the client initializes and keeps the session, posts
// cancellations on it, and starts a new session when the server forgets
// the old one (404).
func TestHTTPLegacyServer(t *testing.T) {
	var mu sync.Mutex
	var initialized []string
	current, n := "", 0
	cancels := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 4096)
		k, _ := r.Body.Read(body)
		msg, err := jsonrpc.Decode(body[:k])
		if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		reply := func(result any) {
			w.Header().Set("Content-Type", "application/json")
			b, _ := rpcwire.EncodeResult(msg.ID, result)
			w.Write(b)
		}
		mu.Lock()
		session := r.Header.Get("Mcp-Session-Id")
		switch {
		case msg.Method == "initialize":
			n++
			current = fmt.Sprintf("sess-%d", n)
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", current)
			reply(map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "legacy-http", "version": "1"}})
			return
		case session == "":
			mu.Unlock()
			http.Error(w, "session required", http.StatusBadRequest)
			return
		case session != current:
			mu.Unlock()
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		case msg.Method == "notifications/initialized":
			initialized = append(initialized, session+" "+r.Header.Get("Mcp-Protocol-Version"))
		case msg.Method == "expire":
			current = ""
		}
		mu.Unlock()
		switch msg.Method {
		case "block":
			<-r.Context().Done()
		case "notifications/cancelled":
			cancels <- string(msg.Params)
			w.WriteHeader(http.StatusAccepted)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			reply(map[string]any{"tools": []any{}})
		}
	}))
	t.Cleanup(srv.Close) // after the client's Close, which deletes the session
	c := connect(t, &client.HTTPTransport{URL: srv.URL})
	if v := c.Server().ProtocolVersion; v != mcp.Version20251125 || c.Server().Implementation.Name != "legacy-http" {
		t.Fatalf("negotiated %q with %+v", v, c.Server())
	}
	// In the initialize era closing the stream is not a cancellation: the
	// client posts one on the session.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "block", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a deadline error, got %v", err)
	}
	select {
	case p := <-cancels:
		if !strings.Contains(p, `"requestId":`) {
			t.Fatalf("cancellation %s", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no cancellation was posted")
	}
	if err := c.Call(context.Background(), "expire", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatalf("after the session expired: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(initialized, "|") != "sess-1 2025-11-25|sess-2 2025-11-25" {
		t.Fatalf("sessions initialized: %q", initialized)
	}
}

// TestHTTPLegacyResumesStream: a 2025-11-25 server may close a request's
// event stream after an event id and a retry field; the client asks for
// the rest with GET and Last-Event-ID, on the session.
func TestHTTPLegacyResumesStream(t *testing.T) {
	var mu sync.Mutex
	var gets []string
	var callID jsonrpc.ID
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets = append(gets, r.Header.Get("Mcp-Session-Id")+" "+r.Header.Get("Last-Event-ID"))
			id := callID
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			b, _ := rpcwire.EncodeResult(jsonrpc.StringID("not-ours"), map[string]any{})
			fmt.Fprintf(w, "id: e2\ndata: %s\n\n", b)
			b, _ = rpcwire.EncodeNotification("notifications/progress", map[string]any{"progressToken": "x", "progress": 1})
			fmt.Fprintf(w, "id: e3\ndata: %s\n\n", b)
			b, _ = rpcwire.EncodeResult(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "resumed"}}})
			fmt.Fprintf(w, "id: e4\ndata: %s\n\n", b)
			return
		}
		if r.Method == http.MethodDelete {
			return
		}
		body := make([]byte, 4096)
		k, _ := r.Body.Read(body)
		msg, err := jsonrpc.Decode(body[:k])
		if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		switch {
		case msg.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			b, _ := rpcwire.EncodeResult(msg.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "resumable", "version": "1"}})
			w.Write(b)
		case msg.Kind == jsonrpc.KindNotification:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "tools/call":
			mu.Lock()
			callID = msg.ID
			mu.Unlock()
			// A priming event, the delay, and the stream ends.
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: e1\nretry: 5\ndata: \n\n")
		default:
			http.Error(w, "no", http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	c := connect(t, &client.HTTPTransport{URL: srv.URL}, client.WithProtocolVersions(mcp.Version20251125))
	res, err := c.CallTool(context.Background(), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "resumed" {
		t.Fatalf("got %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gets) != 1 || gets[0] != "s1 e1" {
		t.Fatalf("GETs %q", gets)
	}
}
