// Package benchtool holds what the three library benchmark servers share:
// the semantics of the echo and sleep tools, the counters the load driver
// reads out of band, and the start-up protocol on standard error (which
// the floor servers follow too).
//
// Every server runs the same tool bodies, so differences in the measurements
// come from the libraries, not from the tools.
package benchtool

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	rpprof "runtime/pprof"
	"sync/atomic"
	"time"
)

// Tool names and input schemas, identical for every server.
const (
	EchoTool    = "echo"
	SleepTool   = "sleep"
	EchoSchema  = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`
	SleepSchema = `{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`
)

// Counters of the sleep tool: how many calls entered it, and how many are
// inside it now. The driver reads them through the stats endpoint to see
// when cancelled calls have really stopped.
var started, running atomic.Int64

// Sleep waits ms milliseconds or until ctx ends, counting itself in the
// stats while it waits. It returns ctx's error when cancelled.
func Sleep(ctx context.Context, ms int64) error {
	started.Add(1)
	running.Add(1)
	defer running.Add(-1)
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SleptText is the text of a completed sleep.
func SleptText(ms int64) string { return fmt.Sprintf("slept %d ms", ms) }

// Stats is the server's state as the stats endpoint reports it.
type Stats struct {
	Started    int64  `json:"started"`
	Running    int64  `json:"running"`
	HeapInuse  uint64 `json:"heapInuse"`
	HeapAlloc  uint64 `json:"heapAlloc"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"`
	Goroutines int    `json:"goroutines"`
}

// ReadStats returns the current counters; with gc it first runs two
// garbage collections so heap figures count live memory only: what a
// sync.Pool held survives the first one in the pool's victim cache, and
// whatever the pools happened to hold at that moment made the heap per
// sleeping call jump between about 4.4 and 6.2 KiB from run to run.
func ReadStats(gc bool) Stats {
	if gc {
		runtime.GC()
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Stats{
		Started:    started.Load(),
		Running:    running.Load(),
		HeapInuse:  m.HeapInuse,
		HeapAlloc:  m.HeapAlloc,
		StackInuse: m.StackInuse,
		Sys:        m.Sys,
		Goroutines: runtime.NumGoroutine(),
	}
}

// Flags are the command-line flags every server understands.
type Flags struct {
	// HTTP, when set, serves Streamable HTTP on this address (use
	// 127.0.0.1:0) instead of stdio.
	HTTP string
}

// ParseFlags registers the common flags (plus any the caller registered on
// flag.CommandLine) and parses the command line.
func ParseFlags() Flags {
	var f Flags
	flag.StringVar(&f.HTTP, "http", "", "serve Streamable HTTP on this 127.0.0.1 address instead of stdio")
	flag.Parse()
	return f
}

// Start-up lines the servers print on standard error; the driver waits for
// them. Standard output belongs to the protocol on stdio.
const (
	StatsLinePrefix = "bench-stats "
	MCPLinePrefix   = "bench-mcp "
	// UnsupportedLine says the server has no such transport yet.
	UnsupportedLine = "bench-unsupported"
)

// ServeStats starts the out-of-band stats endpoint (/stats, ?gc=1 for a
// collection first; /debug/pprof/ for profiles) on a free 127.0.0.1 port
// and announces it on standard error. It runs for the life of the process.
func ServeStats() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ReadStats(r.URL.Query().Get("gc") == "1"))
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go func() { _ = http.Serve(ln, mux) }()
	fmt.Fprintf(os.Stderr, "%s%s\n", StatsLinePrefix, ln.Addr())
	return nil
}

// ListenHTTP opens the MCP listener for addr and announces its URL on
// standard error.
func ListenHTTP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "%shttp://%s/mcp\n", MCPLinePrefix, ln.Addr())
	return ln, nil
}

// Fatal reports err on standard error and exits.
func Fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench server:", err)
	os.Exit(1)
}

// EchoArgs and SleepArgs are the tools' arguments.
type (
	EchoArgs struct {
		Text string `json:"text"`
	}
	SleepArgs struct {
		MS int64 `json:"ms"`
	}
)

// ProfileEnv names the environment variable that makes a server write a
// CPU profile of its whole life to the file it names.
const ProfileEnv = "BENCH_CPUPROFILE"

// StartProfile starts the CPU profile ProfileEnv asks for; the returned
// function stops it. Without the variable it does nothing.
func StartProfile() (stop func()) {
	path := os.Getenv(ProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		Fatal(err)
	}
	if err := rpprof.StartCPUProfile(f); err != nil {
		Fatal(err)
	}
	return func() {
		rpprof.StopCPUProfile()
		_ = f.Close()
	}
}

// AnnounceURL tells the driver where a server's own listener serves MCP,
// for servers that bind their listener themselves.
func AnnounceURL(url string) {
	fmt.Fprintf(os.Stderr, "%s%s\n", MCPLinePrefix, url)
}
