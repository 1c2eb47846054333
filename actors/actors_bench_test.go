package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/mcp"
)

func benchSystem(b *testing.B) *system {
	b.Helper()
	e := executor.New(executor.Config{Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { _ = e.Close(context.Background()) })
	s, err := newSystem(tree.SystemConfig{Logger: slog.New(slog.DiscardHandler), Executor: e})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			b.Error(err)
		}
		if n := s.UnexpectedDeadLetters(); n != 0 {
			b.Errorf("%d unexpected dead letters", n)
		}
	})
	return s
}

// spawnRequests asks the spawner to start and stop n request actors, one
// after another.
type spawnRequests struct{ n int }

// spawner does what a connection actor does per request: spawn a request
// actor and, once the request is done, stop it. The next one starts when
// the previous one has terminated; done closes after the last.
type spawner struct {
	s     *system
	left  int
	done  chan struct{}
	props requestSpawner
}

func (p *spawner) spawnOne(c actor.Context) {
	e := &reqEntry{method: "tools/call", started: time.Now()}
	pid := p.props.spawn(p.s, c, &requestActor{s: p.s, entry: e})
	c.Stop(pid)
}

func (p *spawner) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *spawnRequests:
		p.left = m.n
		p.spawnOne(c)
	case *actor.Terminated:
		p.left--
		if p.left == 0 {
			close(p.done)
			return
		}
		p.spawnOne(c)
	}
}

// BenchmarkSpawnRequestActor is the per-request actor cost: spawn a
// request actor from its connection, stop it, and see it terminate.
func BenchmarkSpawnRequestActor(b *testing.B) {
	s := benchSystem(b)
	p := &spawner{s: s, done: make(chan struct{})}
	pid, _, err := s.spawnTop(s.props(func() actor.Actor { return p }), "spawner")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	s.send(pid, &spawnRequests{n: b.N})
	<-p.done
	cpu.report(b)
}

// BenchmarkWriter is the writer path: a frame sent to the writer actor,
// batched, handed to the pump goroutine and written. roundtrip waits for
// each frame's write before sending the next (one response at a time);
// pipelined sends every frame and waits for the last (the writer
// coalesces them).
func BenchmarkWriter(b *testing.B) {
	frame := bytes.Repeat([]byte("x"), 256)
	b.Run("roundtrip", func(b *testing.B) {
		s := benchSystem(b)
		pid, _, err := s.spawnTop(s.props(func() actor.Actor { return newWriter(s, io.Discard, 0) }), "writer")
		if err != nil {
			b.Fatal(err)
		}
		ack := make(chan error, 1)
		b.ReportAllocs()
		for b.Loop() {
			s.send(pid, &writeFrame{frame: frame, ack: ack})
			if err := <-ack; err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pipelined", func(b *testing.B) {
		s := benchSystem(b)
		pid, _, err := s.spawnTop(s.props(func() actor.Actor { return newWriter(s, io.Discard, 0) }), "writer")
		if err != nil {
			b.Fatal(err)
		}
		ack := make(chan error, 1)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			f := &writeFrame{frame: frame}
			if i == b.N-1 {
				f.ack = ack
			}
			s.send(pid, f)
		}
		if err := <-ack; err != nil {
			b.Fatal(err)
		}
	})
}

// chanFrames is a FrameReader fed by a channel.
type chanFrames chan []byte

func (c chanFrames) ReadFrame() ([]byte, error) {
	f, ok := <-c
	if !ok {
		return nil, io.EOF
	}
	return f, nil
}

// lineCounter counts written lines and returns one token per line.
type lineCounter struct {
	mu     sync.Mutex
	tokens chan struct{}
	lines  int
}

func (w *lineCounter) Write(p []byte) (int, error) {
	n := bytes.Count(p, []byte{'\n'})
	w.mu.Lock()
	w.lines += n
	w.mu.Unlock()
	for range n {
		w.tokens <- struct{}{}
	}
	return len(p), nil
}

func echoRuntime(b *testing.B) *dispatch.Runtime {
	b.Helper()
	rt, err := dispatch.New(mcp.Implementation{Name: "bench", Version: "1.0.0"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)),
		dispatch.WithTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, err
			}
			return mcp.TextResult(a.Text), nil
		}),
	)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

func echoFrame(id int) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"The quick brown fox jumps over the lazy dog, 0123456789."},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}}}`...)
}

// BenchmarkConnEcho is the whole actor path of a stdio connection without
// the OS: the reader goroutine decodes and admits, the connection actor
// submits and spawns a request actor, a worker executes, the writer
// writes, the connection stops the request actor. C requests are kept in
// flight, as the load harness does.
func BenchmarkConnEcho(b *testing.B) {
	for _, c := range []int{1, 16} {
		b.Run("C="+strconv.Itoa(c), func(b *testing.B) {
			s := benchSystem(b)
			in := make(chanFrames, c)
			out := &lineCounter{tokens: make(chan struct{}, c)}
			conn, err := s.StartConn(tree.ConnConfig{Prefix: "bench", Runtime: echoRuntime(b), Input: in, Output: out, Transport: dispatch.TransportStdio})
			if err != nil {
				b.Fatal(err)
			}
			frames := make([][]byte, b.N)
			for i := range frames {
				frames[i] = echoFrame(i + 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			for i := range b.N {
				if i >= c {
					<-out.tokens
				}
				in <- frames[i]
			}
			for range min(c, b.N) {
				<-out.tokens
			}
			cpu.report(b)
			b.StopTimer()
			close(in)
			<-conn.Done()
			if err := conn.Err(); err != nil {
				b.Fatal(err)
			}
			if out.lines != b.N {
				b.Fatalf("%d responses for %d requests", out.lines, b.N)
			}
			if err := s.Executor().Close(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
