package main

import (
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/snodo-go/snodo/internal/sse"
)

// maxBody bounds a request body, as the library's HTTP transport does.
const maxBody = 2_000_000

// The HTTP rules below serve initialize-era sessions, which the library's
// Streamable HTTP transport does not have yet: method, Origin, media
// types, body size. Stateless requests go through the library's own rules
// instead (see front). statusFor maps the error of a response the stdio
// server wrote to its HTTP status, as the transport specification's table
// says, since that response never passes through the library's transport.

// refuse writes a JSON-RPC error without an id and the given status.
func refuse(w http.ResponseWriter, status int, code int, message string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// originAllowed accepts a request without Origin, or one whose Origin
// names a loopback host (DNS-rebinding protection).
func originAllowed(r *http.Request) bool {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) > 1 {
		return false
	}
	u, err := url.Parse(origins[0])
	if err != nil || u.User != nil || u.Host == "" {
		return false
	}
	return isLoopback(u.Hostname())
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// mediaOK checks Content-Type (application/json) and Accept (both
// application/json and text/event-stream, or a wildcard).
func mediaOK(w http.ResponseWriter, r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		refuse(w, http.StatusUnsupportedMediaType, -32600, "Invalid Request: Content-Type must be application/json")
		return false
	}
	var jsonOK, sseOK bool
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	if !jsonOK || !sseOK {
		refuse(w, http.StatusNotAcceptable, -32600, "Invalid Request: Accept must list application/json and text/event-stream")
		return false
	}
	return true
}

// readBody reads a bounded body.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		refuse(w, http.StatusRequestEntityTooLarge, -32600, "Invalid Request: body too large or unreadable")
		return nil, false
	}
	return body, true
}

// errorCode returns the error code a response frame carries, or 0.
func errorCode(frame []byte) int64 {
	e := memberValue(frame, "error")
	if e == nil {
		return 0
	}
	code, _ := strconv.ParseInt(string(memberValue(e, "code")), 10, 64)
	return code
}

// statusFor is the HTTP status of a final JSON response. 2026-07-28 maps
// error codes to statuses (the transport specification's table); the
// initialize era answers every JSON-RPC response with 200.
func statusFor(sessions bool, frame []byte) int {
	code := errorCode(frame)
	if sessions || code == 0 {
		return http.StatusOK
	}
	switch code {
	case -32601:
		return http.StatusNotFound
	case -32700, -32600, -32602, -32020, -32021, -32022:
		return http.StatusBadRequest
	case -32603:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}

// sseWriter writes server-sent events, one message per event.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	_ = s.rc.Flush()
	return s
}

func (s *sseWriter) event(frame []byte) error {
	return s.write(sse.AppendEvent(nil, sse.Event{Type: "message", Data: frame}))
}

// comment writes an SSE comment line, which clients ignore; it keeps a
// quiet stream from looking dead and finds a client that has gone.
func (s *sseWriter) comment(text string) error {
	return s.write(sse.AppendComment(nil, text))
}

func (s *sseWriter) write(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}
