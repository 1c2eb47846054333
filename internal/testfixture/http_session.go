// This file is an initialize-era client of a Streamable HTTP endpoint.

package testfixture

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

// HTTPSession is an initialize-era client of a Streamable HTTP endpoint
// (2025-11-25, 2025-06-18): it sends the headers those revisions use
// (MCP-Protocol-Version after initialize, the Mcp-Session-Id the server
// issued, when it issued one) and validates every frame it reads against
// the schema of the negotiated version.
type HTTPSession struct {
	URL     string
	Client  *http.Client
	Version string
	// ID is the Mcp-Session-Id the server issued, "" when it issued none.
	ID string
	// Init is the initialize reply.
	Init *HTTPReply
}

// OpenHTTPSession initializes at version with capabilities (nil for
// none) and, when that succeeds, sends notifications/initialized.
func OpenHTTPSession(t testing.TB, url, version string, capabilities map[string]any) *HTTPSession {
	t.Helper()
	s := &HTTPSession{URL: url, Client: http.DefaultClient, Version: version}
	s.Init = s.Post(t, Initialize(0, version, capabilities), func(r *http.Request) { r.Header.Del("Mcp-Protocol-Version") })
	if s.Init.Status != http.StatusOK || s.Init.Last() == nil || s.Init.Last().Error != nil {
		t.Fatalf("testfixture: initialize: %d %s", s.Init.Status, s.Init.Body)
	}
	s.ID = s.Init.Header.Get("Mcp-Session-Id")
	if r := s.Post(t, testkit.Notification("notifications/initialized", nil), nil); r.Status != http.StatusAccepted {
		t.Fatalf("testfixture: notifications/initialized: %d %s", r.Status, r.Body)
	}
	return s
}

// NewRequest builds a POST of frame with the session's headers.
func (s *HTTPSession) NewRequest(ctx context.Context, frame []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	req.Header = http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {s.Version},
	}
	if s.ID != "" {
		req.Header.Set("Mcp-Session-Id", s.ID)
	}
	return req, nil
}

// Post sends frame (edit, when not nil, may change the request first) and
// reads the whole reply, validating its frames against the session's
// version.
func (s *HTTPSession) Post(t testing.TB, frame []byte, edit func(*http.Request)) *HTTPReply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	req, err := s.NewRequest(ctx, frame)
	if err != nil {
		t.Fatalf("testfixture: building request: %v", err)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("testfixture: POST %s: %v", s.URL, err)
	}
	defer resp.Body.Close()
	return ReadHTTPReplyVersion(t, resp, methodOf(frame), s.Version)
}

// Call sends a request and returns the response frame, failing t if the
// reply holds none.
func (s *HTTPSession) Call(t testing.TB, id any, method string, params map[string]any) *testkit.Frame {
	t.Helper()
	r := s.Post(t, LegacyRequest(id, method, params), nil)
	f := r.Last()
	if f == nil || f.Method != "" {
		t.Fatalf("testfixture: %s: no response (%d %s)", method, r.Status, r.Body)
	}
	return f
}

// Delete ends the session and returns the status.
func (s *HTTPSession) Delete(t testing.TB) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", s.ID)
	req.Header.Set("Mcp-Protocol-Version", s.Version)
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("testfixture: DELETE: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
