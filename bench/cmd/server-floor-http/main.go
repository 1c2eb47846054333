// Command server-floor-http is the HTTP floor of the benchmark: one
// http.HandlerFunc on net/http that decodes each POST's JSON-RPC request
// with encoding/json and writes the encoded answer of the echo tool
// (bench/internal/floor) as application/json. No checks (no headers, no
// protocol version), no sessions: what any Streamable HTTP server must
// spend per call at least. It serves HTTP only; without -http it says it
// is unsupported.
package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/bench/internal/floor"
)

func main() {
	f := benchtool.ParseFlags()
	if f.HTTP == "" {
		os.Stderr.WriteString(benchtool.UnsupportedLine + "\n")
		return
	}
	if err := benchtool.ServeStats(); err != nil {
		benchtool.Fatal(err)
	}
	defer benchtool.StartProfile()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := benchtool.ListenHTTP(f.HTTP)
	if err != nil {
		benchtool.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(echo)}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		benchtool.Fatal(err)
	}
}

// echo answers one POSTed request.
func echo(w http.ResponseWriter, r *http.Request) {
	var req floor.Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, ok := floor.Answer(&req)
	if !ok {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
