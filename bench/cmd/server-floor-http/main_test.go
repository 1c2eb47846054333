package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// The handler answers an echo POST with application/json, a notification
// with 202 and no body, and an undecodable body with 400.
func TestEcho(t *testing.T) {
	post := func(body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		echo(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)))
		return rec
	}
	rec := post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}` + "\n"
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != want {
		t.Fatalf("echo: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	if rec := post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`); rec.Code != http.StatusAccepted || rec.Body.Len() != 0 {
		t.Fatalf("notification: %d %q", rec.Code, rec.Body.String())
	}
	if rec := post(`{`); rec.Code != http.StatusBadRequest {
		t.Fatalf("bad body: %d", rec.Code)
	}
}
