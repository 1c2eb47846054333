package streamablehttp_test

// SessionConfig.IDPrefix: the ids a handler issues carry its prefix, and
// a bad prefix is refused.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func TestSessionIDsCarryThePrefix(t *testing.T) {
	rt := legacyRuntime(t)
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: "i7."}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	s := testfixture.OpenHTTPSession(t, srv.URL(), mcp.Version20251125, nil)
	if !strings.HasPrefix(s.ID, "i7.") || len(s.ID) != len("i7.")+43 {
		t.Fatalf("session id %q does not carry the prefix", s.ID)
	}
	if f := s.Call(t, 1, "ping", nil); string(f.Result) != "{}" {
		t.Fatalf("ping in the prefixed session: %s", f.Raw)
	}
	// The same random part under another prefix names no session here.
	other := "i8." + strings.TrimPrefix(s.ID, "i7.")
	resp := rawDo(t, t.Context(), http.MethodDelete, srv.URL(), http.Header{"Mcp-Session-Id": {other}})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("DELETE of %q: %d, want 404", other, resp.StatusCode)
	}
}

func TestSessionIDPrefixIsChecked(t *testing.T) {
	rt := legacyRuntime(t)
	for _, bad := range []string{"a b", "é", strings.Repeat("x", 65)} {
		if h, err := streamablehttp.NewHandler(rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: bad})); err == nil {
			_ = h.Close()
			t.Errorf("IDPrefix %q accepted", bad)
		}
	}
	h, err := streamablehttp.NewHandler(rt, streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: strings.Repeat("x", 64)}))
	if err != nil {
		t.Fatalf("a 64-character prefix refused: %v", err)
	}
	_ = h.Close()
}
