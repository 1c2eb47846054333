package client_test

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// fake is a scripted server on a newline-delimited stream. handle runs
// for each message from the client on a goroutine of its own; it answers
// with reply, fail, notify and ask.
type fake struct {
	handle func(f *fake, m *jsonrpc.Message)
	w      io.Writer

	wmu     sync.Mutex
	mu      sync.Mutex
	got     []*jsonrpc.Message
	changed chan struct{}
	answers map[jsonrpc.ID]chan *jsonrpc.Message
	nextID  int64
	wg      sync.WaitGroup
}

// serve reads r until it ends.
func (f *fake) serve(r io.Reader) {
	f.changed = make(chan struct{})
	f.answers = map[jsonrpc.ID]chan *jsonrpc.Message{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		m, err := jsonrpc.Decode(line)
		if err != nil {
			continue
		}
		f.mu.Lock()
		f.got = append(f.got, m)
		close(f.changed)
		f.changed = make(chan struct{})
		ch := f.answers[m.ID]
		f.mu.Unlock()
		if m.Kind == jsonrpc.KindResponse {
			if ch != nil {
				ch <- m
			}
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.handle(f, m)
		}()
	}
	f.wg.Wait()
}

func (f *fake) write(frame []byte) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.w.Write(append(frame, '\n'))
}

func (f *fake) reply(id jsonrpc.ID, result any) {
	b, err := rpcwire.EncodeResult(id, result)
	if err != nil {
		panic(err)
	}
	f.write(b)
}

func (f *fake) fail(id jsonrpc.ID, code int64, msg string, data any) {
	f.write(rpcwire.EncodeError(id, &jsonrpc.Error{Code: code, Message: msg, Data: data}))
}

func (f *fake) notify(method string, params any) {
	b, err := rpcwire.EncodeNotification(method, params)
	if err != nil {
		panic(err)
	}
	f.write(b)
}

// ask sends a server-to-client request and waits for the answer.
func (f *fake) ask(method string, params any) *jsonrpc.Message {
	f.mu.Lock()
	f.nextID++
	id := jsonrpc.StringID("srv-" + string(rune('a'+f.nextID)))
	ch := make(chan *jsonrpc.Message, 1)
	f.answers[id] = ch
	f.mu.Unlock()
	b, err := rpcwire.EncodeRequest(id, method, params)
	if err != nil {
		panic(err)
	}
	f.write(b)
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		return nil
	}
}

// received returns the messages with method received so far.
func (f *fake) received(method string) []*jsonrpc.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*jsonrpc.Message
	for _, m := range f.got {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// await waits until a message with method has arrived.
func (f *fake) await(t *testing.T, method string) *jsonrpc.Message {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		for _, m := range f.got {
			if m.Method == method {
				f.mu.Unlock()
				return m
			}
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("no %s arrived", method)
		}
	}
}

// startFake runs a fake over in-memory pipes.
func startFake(t *testing.T, handle func(f *fake, m *jsonrpc.Message)) (*fake, *client.StreamTransport) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fake{handle: handle, w: outW}
	done := make(chan struct{})
	go func() {
		f.serve(inR)
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() {
		inW.Close()
		inR.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the fake server did not end")
		}
	})
	return f, &client.StreamTransport{Reader: outR, Writer: inW}
}

// param decodes one member of a message's params.
func param(m *jsonrpc.Message, name string, v any) bool {
	raw, ok := jsonwire.Member(m.Params, name)
	if !ok {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

func metaOf(m *jsonrpc.Message) map[string]json.RawMessage {
	var meta map[string]json.RawMessage
	param(m, "_meta", &meta)
	return meta
}

// discovered answers server/discover for a 2026-07-28 server.
func discovered(caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{"tools": map[string]any{}}
	}
	return map[string]any{
		"resultType": "complete", "supportedVersions": []string{"2026-07-28"}, "capabilities": caps,
		"ttlMs": 0, "cacheScope": "public",
		"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake", "version": "1"}},
	}
}

// modern is a handler for a 2026-07-28 fake: server/discover is answered,
// everything else goes to h.
func modern(h func(f *fake, m *jsonrpc.Message)) func(f *fake, m *jsonrpc.Message) {
	return func(f *fake, m *jsonrpc.Message) {
		if m.Method == "server/discover" {
			f.reply(m.ID, discovered(nil))
			return
		}
		h(f, m)
	}
}

func complete(fields map[string]any) map[string]any {
	out := map[string]any{"resultType": "complete"}
	for k, v := range fields {
		out[k] = v
	}
	return out
}
