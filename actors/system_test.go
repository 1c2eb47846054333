package actors

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/mcp"
)

// chanReader is a FrameReader fed by a test.
type chanReader struct{ frames chan []byte }

func (r *chanReader) ReadFrame() ([]byte, error) {
	f, ok := <-r.frames
	if !ok {
		return nil, io.EOF
	}
	return f, nil
}

// lineSink collects output lines.
type lineSink struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{}
	done  chan struct{}
}

func newLineSink(r io.Reader) *lineSink {
	s := &lineSink{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
		}
	}()
	return s
}

func (s *lineSink) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		if len(s.lines) >= n {
			out := append([]string(nil), s.lines...)
			s.mu.Unlock()
			return out
		}
		s.mu.Unlock()
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("got %d lines, want %d", len(s.lines), n)
		}
	}
}

func request(id int, method string, params string) []byte {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		params += ","
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, meta)
}

func waitTree(t *testing.T, s *system, cond func(*tree.Node) bool) *tree.Node {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := s.Tree()
		if cond(n) {
			return n
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(n, "", " ")
			t.Fatalf("tree never met the condition:\n%s", b)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestTreeDuringAndAfterABurst(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	release := make(chan struct{})
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet),
		dispatch.WithTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return mcp.TextResult("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	exec := executor.New(executor.Config{Logger: quiet})
	sys, err := newSystem(tree.SystemConfig{Logger: quiet, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	in := &chanReader{frames: make(chan []byte, 64)}
	outR, outW := io.Pipe()
	sink := newLineSink(outR)
	conn, err := sys.StartConn(tree.ConnConfig{Prefix: "stdio", Runtime: rt, Input: in, Output: outW, Transport: dispatch.TransportStdio})
	if err != nil {
		t.Fatal(err)
	}

	const burst = 20
	var wg sync.WaitGroup
	for i := 1; i <= burst; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); in.frames <- request(i, "tools/call", `"name":"hold"`) }()
	}
	wg.Wait()
	snap := waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == burst })
	if snap.Kind != tree.KindSupervisor || snap.ID != "snodo" {
		t.Fatalf("root = %s %s", snap.Kind, snap.ID)
	}
	var connNode, execNode *tree.Node
	for _, c := range snap.Children {
		switch c.Kind {
		case tree.KindConnection:
			connNode = c
		case tree.KindExecutor:
			execNode = c
		}
	}
	if connNode == nil || connNode.ID != conn.ID() || connNode.Attrs["transport"] != "stdio" {
		t.Fatalf("connection node: %+v", connNode)
	}
	if execNode == nil || execNode.Attrs["running"] != strconv.Itoa(burst) {
		t.Fatalf("executor node: %+v", execNode)
	}
	ids := map[string]bool{}
	writers := 0
	for _, c := range connNode.Children {
		switch c.Kind {
		case tree.KindWriter:
			writers++
		case tree.KindRequest:
			if c.Attrs["method"] != "tools/call" || c.Attrs["deadline"] == "" {
				t.Fatalf("request node attrs: %+v", c.Attrs)
			}
			ids[c.Attrs["id"]] = true
		}
	}
	if writers != 1 || len(ids) != burst {
		t.Fatalf("connection children: %d writers, %d distinct request ids", writers, len(ids))
	}

	close(release)
	lines := sink.waitFor(t, burst)
	seen := map[string]bool{}
	for _, l := range lines {
		var f struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("bad line %q", l)
		}
		seen[string(f.ID)] = true
	}
	if len(seen) != burst {
		t.Fatalf("%d distinct responses, want %d", len(seen), burst)
	}
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindRequest) == 0 && n.Count(tree.KindConnection) == 1 })

	close(in.frames) // EOF
	select {
	case <-conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("connection did not end after EOF")
	}
	if conn.Err() != nil {
		t.Fatalf("connection error: %v", conn.Err())
	}
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindConnection) == 0 && n.Count(tree.KindWriter) == 0 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sys.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	<-sink.done
	if n := sys.registered(); n != 0 {
		t.Fatalf("%d actors still registered after Close", n)
	}
	if n := sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

func TestCloseStopsLiveConnections(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	rt, err := dispatch.New(mcp.Implementation{Name: "t", Version: "1"}, dispatch.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	exec := executor.New(executor.Config{Logger: quiet})
	sys, err := newSystem(tree.SystemConfig{Logger: quiet, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	var conns []tree.Conn
	var readers []*chanReader
	for range 3 {
		r := &chanReader{frames: make(chan []byte)}
		c, err := sys.StartConn(tree.ConnConfig{Runtime: rt, Input: r, Output: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		conns, readers = append(conns, c), append(readers, r)
	}
	waitTree(t, sys, func(n *tree.Node) bool { return n.Count(tree.KindConnection) == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sys.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		<-c.Done()
	}
	if _, err := sys.StartConn(tree.ConnConfig{Runtime: rt, Input: readers[0], Output: io.Discard}); err != tree.ErrSystemClosed {
		t.Fatalf("StartConn after Close: %v", err)
	}
	// The reader goroutines are blocked in ReadFrame; ending input lets them go.
	for _, r := range readers {
		close(r.frames)
	}
	if err := exec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sys.registered(); n != 0 {
		t.Fatalf("%d actors still registered", n)
	}
	if n := sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
