// This file is the raw HTTP side of the fixtures: the headers a
// 2026-07-28 client sends, POSTs whose every frame is schema-checked, and
// an event-stream reader.

package testfixture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/sse"
	"github.com/snodo-go/snodo/testkit"
)

// HTTPHeaders returns the headers a 2026-07-28 client sends with a request
// frame: Content-Type, Accept, MCP-Protocol-Version (the frame's _meta
// version), Mcp-Method and, for tools/call, prompts/get and
// resources/read, Mcp-Name (in the base64 form when the value is not
// plain ASCII).
func HTTPHeaders(frame []byte) http.Header {
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &msg) != nil {
		return h
	}
	if msg.Params.Meta.Version != "" {
		h.Set("Mcp-Protocol-Version", msg.Params.Meta.Version)
	}
	if msg.Method != "" {
		h.Set("Mcp-Method", msg.Method)
	}
	switch msg.Method {
	case "tools/call", "prompts/get":
		h.Set("Mcp-Name", headerValue(msg.Params.Name))
	case "resources/read":
		h.Set("Mcp-Name", headerValue(msg.Params.URI))
	}
	return h
}

// headerValue uses the =?base64?…?= form for values a header cannot carry
// as they are.
func headerValue(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] >= 0x7f {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
		}
	}
	if strings.TrimSpace(v) != v || strings.HasPrefix(v, "=?base64?") {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
	}
	return v
}

// HTTPReply is a server's whole answer to one POST.
type HTTPReply struct {
	Status int
	Header http.Header
	Body   []byte
	// Frames are the JSON-RPC messages of the body: the object of an
	// application/json body, or the data of each event of an event
	// stream, in order.
	Frames []*testkit.Frame
	// Comments counts the event stream's comment lines (keepalives).
	Comments int
}

// Last returns the last frame, or nil.
func (r *HTTPReply) Last() *testkit.Frame {
	if len(r.Frames) == 0 {
		return nil
	}
	return r.Frames[len(r.Frames)-1]
}

// NewMCPRequest builds a POST of frame to url with HTTPHeaders.
func NewMCPRequest(ctx context.Context, url string, frame []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	req.Header = HTTPHeaders(frame)
	return req, nil
}

// PostMCP posts frame to url with HTTPHeaders (edit, when not nil, may
// change the request first), reads the whole answer, and validates every
// JSON-RPC frame in it against the official schema: it fails t on any
// frame that does not validate.
func PostMCP(t testing.TB, c *http.Client, url string, frame []byte, edit func(*http.Request)) *HTTPReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	req, err := NewMCPRequest(ctx, url, frame)
	if err != nil {
		t.Fatalf("testfixture: building request: %v", err)
	}
	if edit != nil {
		edit(req)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("testfixture: POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	return ReadHTTPReply(t, resp, methodOf(frame))
}

func methodOf(frame []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(frame, &m)
	return m.Method
}

// ReadHTTPReply reads resp's whole body and decodes its frames by content
// type, validating each against the official schema (method is the
// request's). It fails t on an invalid or non-ASCII frame.
func ReadHTTPReply(t testing.TB, resp *http.Response, method string) *HTTPReply {
	t.Helper()
	return ReadHTTPReplyVersion(t, resp, method, Version)
}

// ReadHTTPReplyVersion is ReadHTTPReply for a client of another revision:
// frames are validated against the official schema of version.
func ReadHTTPReplyVersion(t testing.TB, resp *http.Response, method, version string) *HTTPReply {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("testfixture: reading response body: %v", err)
	}
	r := &HTTPReply{Status: resp.StatusCode, Header: resp.Header, Body: body}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		r.Frames = append(r.Frames, checkedFrame(t, body, method, version))
	case "text/event-stream":
		sr := NewSSEReader(bytes.NewReader(body))
		for {
			data, comment, err := sr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("testfixture: reading event stream: %v", err)
			}
			if comment {
				r.Comments++
				continue
			}
			r.Frames = append(r.Frames, checkedFrame(t, data, method, version))
		}
	}
	return r
}

// CheckFrame validates one frame the server sent over HTTP against the
// official schema (method is the request's) and decodes it.
func CheckFrame(t testing.TB, raw []byte, method string) *testkit.Frame {
	t.Helper()
	return checkedFrame(t, raw, method, Version)
}

// CheckFrameVersion is CheckFrame against the schema of version.
func CheckFrameVersion(t testing.TB, raw []byte, method, version string) *testkit.Frame {
	t.Helper()
	return checkedFrame(t, raw, method, version)
}

func checkedFrame(t testing.TB, raw []byte, method, version string) *testkit.Frame {
	t.Helper()
	for _, b := range raw {
		if b >= 0x80 {
			t.Errorf("testfixture: frame has non-ASCII bytes: %q", raw)
			break
		}
	}
	if err := testkit.ValidateFrame(version, raw, method); err != nil {
		t.Errorf("testfixture: frame fails the %s schema: %v\n%s", version, err, raw)
	}
	f := &testkit.Frame{}
	if err := json.Unmarshal(raw, f); err != nil {
		t.Errorf("testfixture: frame is not JSON: %v: %q", err, raw)
	}
	f.Raw = append([]byte(nil), raw...)
	return f
}

// SSEReader reads a text/event-stream one event at a time, for tests that
// act between events. It holds the server to what snodo-go writes: data
// lines and comments only, each event ended by a blank line.
type SSEReader struct {
	r *sse.Reader
}

// LastEventID is the id of the last event read that had one ("" for
// none), what a client sends as Last-Event-ID to resume the stream.
func (s *SSEReader) LastEventID() string { return s.r.LastID }

// Retry is the last reconnection delay read, in milliseconds ("" for
// none).
func (s *SSEReader) Retry() string {
	if !s.r.RetrySet {
		return ""
	}
	return strconv.FormatInt(s.r.Retry.Milliseconds(), 10)
}

// maxSSEEvent bounds one event a test reads.
const maxSSEEvent = 64 << 20

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader {
	sr := sse.NewReader(&endChecker{r: r}, maxSSEEvent)
	sr.Comments, sr.Strict = true, true
	return &SSEReader{r: sr}
}

// Next returns the next event's data, or comment=true for a comment
// block. It returns io.EOF at the end of the stream. Like an EventSource
// it keeps the ids and retry fields it reads (LastEventID, Retry), and
// an event without data (the priming event of a 2025-11-25 stream) is
// not one to return: it reads on to the next.
func (s *SSEReader) Next() (data []byte, comment bool, err error) {
	ev, err := s.r.Next()
	switch {
	case err != nil:
		return nil, false, err
	case ev.Comment:
		return nil, true, nil
	case ev.Type != "":
		return nil, false, fmt.Errorf("event stream event with a type: %+v", ev)
	}
	return ev.Data, false, nil
}

// endChecker reports a stream that ends inside an event (after a line
// that is not blank) as an error, not as the event the format delivers.
type endChecker struct {
	r    io.Reader
	last [2]byte // the stream's last two bytes
	n    int
}

func (e *endChecker) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	for _, b := range p[:n] {
		e.last[0], e.last[1] = e.last[1], b
		e.n++
	}
	if errors.Is(err, io.EOF) && e.n > 0 && (e.last[1] != '\n' || e.n > 1 && e.last[0] != '\n') {
		return n, fmt.Errorf("event stream ended inside an event: %w", io.ErrUnexpectedEOF)
	}
	return n, err
}
