package main

// A handler served by proxyServer, the server of every proxy of the
// chain, reads its request body after writing the answer's head, as a
// reverse proxy's transport does.

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProxyServerKeepsTheBodyReadableAfterTheHead(t *testing.T) {
	const body = "the request body"
	read := make(chan string, 1)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = proxyServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			read <- "error: " + err.Error()
			return
		}
		read <- string(b)
	}), slog.New(slog.DiscardHandler))
	srv.Start()
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	// Without full duplex the server drains and closes the body when the
	// head is written: the read fails ("invalid Read on closed Body").
	if got := <-read; got != body {
		t.Fatalf("the handler read %q, want %q", got, body)
	}
}
