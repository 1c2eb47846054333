// This file connects a client.Client to a server for a test, in process,
// over stdio or over HTTP, with every received frame schema-checked.

package testkit

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// frameChecker validates every frame a server sends to a client.Client
// against the official schema of the revision it belongs to, and that its
// bytes are ASCII. Its trace is the client.WithTrace callback; failures
// lists what failed. The revision of a response is the one its request was sent
// under (its _meta version, or the version an initialize asked for); a
// notification or server request takes the revision of the last request.
type frameChecker struct {
	mu       sync.Mutex
	methods  map[jsonrpc.ID]string
	versions map[jsonrpc.ID]string
	last     string
	problems []string
}

// newFrameChecker returns an empty frameChecker.
func newFrameChecker() *frameChecker {
	return &frameChecker{methods: map[jsonrpc.ID]string{}, versions: map[jsonrpc.ID]string{}, last: defaultVersion}
}

// trace is the client.WithTrace callback.
func (fc *frameChecker) trace(sent bool, frame []byte) {
	msg, err := jsonrpc.Decode(frame)
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if err != nil {
		if !sent {
			fc.problems = append(fc.problems, fmt.Sprintf("undecodable frame %q: %v", frame, err))
		}
		return
	}
	if sent {
		if msg.Kind != jsonrpc.KindRequest {
			return
		}
		v := requestVersion(msg)
		if v == "" {
			v = fc.last
		}
		fc.methods[msg.ID], fc.versions[msg.ID], fc.last = msg.Method, v, v
		return
	}
	for _, b := range frame {
		if b >= 0x80 {
			fc.problems = append(fc.problems, fmt.Sprintf("frame has non-ASCII bytes: %q", frame))
			break
		}
	}
	version, method := fc.last, ""
	if msg.Kind == jsonrpc.KindResponse {
		if v, ok := fc.versions[msg.ID]; ok {
			version, method = v, fc.methods[msg.ID]
		}
	}
	if err := ValidateFrame(version, frame, method); err != nil {
		fc.problems = append(fc.problems, fmt.Sprintf("frame %s fails the %s schema: %v", frame, version, err))
	}
}

// requestVersion is the revision a request names: its _meta version, or
// the version an initialize asks for.
func requestVersion(msg *jsonrpc.Message) string {
	if msg.Method == "initialize" {
		raw, _ := jsonwire.Member(msg.Params, "protocolVersion")
		v, _ := jsonwire.Unquote(raw)
		return v
	}
	meta, ok := jsonwire.Member(msg.Params, "_meta")
	if !ok {
		return ""
	}
	raw, _ := jsonwire.Member(meta, mcp.MetaProtocolVersion)
	v, _ := jsonwire.Unquote(raw)
	return v
}

// failures returns the failures seen so far.
func (fc *frameChecker) failures() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.problems...)
}

// Connect connects a client.Client over tr, with every frame the server
// sends checked against the official schema. The client is closed when
// the test ends, and every failed frame fails the test then.
func Connect(t testing.TB, tr client.Transport, opts ...client.Option) *client.Client {
	t.Helper()
	fc := newFrameChecker()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	c, err := client.New(ctx, tr, append([]client.Option{client.WithTrace(fc.trace)}, opts...)...)
	if err != nil {
		t.Fatalf("testkit: connecting a client: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("testkit: closing the client: %v", err)
		}
		for _, p := range fc.failures() {
			t.Error("testkit: " + p)
		}
	})
	return c
}

// ConnectStdio serves rt with transports/stdio over in-memory pipes, under
// a supervisor of its own, and connects a client.Client to it (see
// Connect). When the test ends the client closes, which ends the server's
// input; Serve must then return, and the supervisor is closed.
func ConnectStdio(t testing.TB, rt *dispatch.Runtime, opts ...client.Option) *client.Client {
	t.Helper()
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW))
		outW.Close()
		errc <- err
	}()
	// Registered first, so it runs after the client's Close.
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("testkit: stdio.Serve: %v", err)
			}
		case <-time.After(DefaultTimeout):
			t.Error("testkit: stdio.Serve did not return")
		}
		outR.Close()
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Errorf("testkit: closing supervisor: %v", err)
		}
		if n := sup.UnexpectedDeadLetters(); n != 0 {
			t.Errorf("testkit: %d unexpected dead letters", n)
		}
	})
	return Connect(t, &client.StreamTransport{Reader: outR, Writer: inW}, opts...)
}

// ConnectHTTP serves rt with the streamablehttp handler on an httptest
// server at 127.0.0.1 and connects a client.Client to it (see Connect).
// The handler and the server are closed when the test ends, after the
// client.
func ConnectHTTP(t testing.TB, rt *dispatch.Runtime, opts ...client.Option) *client.Client {
	t.Helper()
	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	// Registered first, so it runs after the client's Close.
	t.Cleanup(func() {
		srv.Close()
		if err := h.Close(); err != nil {
			t.Errorf("testkit: closing the HTTP handler: %v", err)
		}
	})
	return Connect(t, &client.HTTPTransport{URL: srv.URL + "/mcp"}, opts...)
}
