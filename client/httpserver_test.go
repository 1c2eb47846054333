package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// wireServer speaks the 2026-07-28 Streamable HTTP wire over a Runtime,
// the way a server transport would: one POST per message, JSON for a plain
// result, an event stream once the request reports progress, the error
// statuses clients use for version detection, and a disconnect as the
// cancellation. It records the headers of every POST for the tests.
type wireServer struct {
	rt *dispatch.Runtime

	mu      sync.Mutex
	headers []http.Header
}

func (s *wireServer) seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

func statusFor(code int64) int {
	switch code {
	case 0:
		return http.StatusOK
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingRequiredClientCapability,
		jsonrpc.CodeUnsupportedProtocolVersion, jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, status int, frame []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(frame)
}

// sseNotifier switches the response to an event stream on the first
// notification.
type sseNotifier struct {
	w       http.ResponseWriter
	mu      sync.Mutex
	started bool
}

func (n *sseNotifier) event(frame []byte) {
	if !n.started {
		n.started = true
		n.w.Header().Set("Content-Type", "text/event-stream")
		n.w.WriteHeader(http.StatusOK)
	}
	io.WriteString(n.w, "event: message\ndata: ")
	n.w.Write(frame)
	io.WriteString(n.w, "\n\n")
	n.w.(http.Flusher).Flush()
}

func (n *sseNotifier) Notify(ctx context.Context, frame []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	n.event(frame)
	return nil
}

func (s *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "only POST", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return
	}
	msg, err := jsonrpc.Decode(body)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		writeJSON(w, http.StatusBadRequest, jsonrpc.EncodeError(de.ID, de.Err))
		return
	}
	if msg.Kind != jsonrpc.KindRequest {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	n := &sseNotifier{w: w}
	call, out := s.rt.Admit(&dispatch.Request{Message: msg, Transport: dispatch.TransportHTTP, Header: r.Header, Notifier: n})
	if call == nil {
		writeJSON(w, statusFor(out.ErrorCode), out.Frame)
		return
	}
	out = s.rt.Execute(r.Context(), call)
	if r.Context().Err() != nil {
		return // cancelled by the disconnect: nothing more is sent
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.started {
		n.event(out.Frame)
		return
	}
	writeJSON(w, statusFor(out.ErrorCode), out.Frame)
}

// startWireServer serves the test runtime on 127.0.0.1.
func startWireServer(t *testing.T) (*wireServer, *httptest.Server) {
	ws := &wireServer{rt: mustRuntime(t)}
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	return ws, srv
}

func httpTransport(t *testing.T) client.Transport {
	_, srv := startWireServer(t)
	return client.HTTP(srv.URL)
}
