package load

// The cancellation storm over Streamable HTTP: each sleep call is a POST
// on its own connection, and the client cancels by disconnecting.

import (
	"bufio"
	"context"

	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// RunHTTPStorm starts cfg.Calls sleep calls on t's Streamable HTTP
// endpoint, each a POST on its own connection, waits until the server
// runs as many as it will, then disconnects every one of them and
// measures, as RunStorm does on stdio, how long until no handler runs,
// how many responses still arrive for the cancelled calls, and how many
// calls start after their cancel.
//
// The disconnect is a shutdown of the connection's sending side: the
// server reads the end of the connection, as it would after a close, and
// the driver can still read whatever the server sends for the call
// afterwards (a "late" response, which a closed connection would lose
// unseen). A late response is a JSON-RPC message, or an HTTP error
// status; an empty 200 (what net/http sends for a handler that wrote
// nothing) is not one. Every connection is closed in full at the end.
func RunHTTPStorm(ctx context.Context, t *Target, cfg StormConfig) (Result, error) {
	res := Result{Scenario: "httpstorm", Param: cfg.Calls}
	fail := func(err error) (Result, error) {
		res.Err = err.Error()
		return res, err
	}
	ep, err := parseEndpoint(t.URL)
	if err != nil {
		return fail(err)
	}
	if lim, err := FileLimit(); err == nil && uint64(cfg.Calls)+256 > lim {
		return fail(fmt.Errorf("load: %d connections need more open files than the limit of %d", cfg.Calls, lim))
	}
	base, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	var (
		mu         sync.Mutex
		cancelSent bool
		early      int64
		earlyErrs  int64
		late       int64
		readers    sync.WaitGroup
	)
	n := int64(cfg.Calls)
	conns := make([]*net.TCPConn, 0, n)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
		readers.Wait()
	}()
	var req []byte
	for id := int64(1); id <= n; id++ {
		c, err := ep.dial()
		if err != nil {
			return fail(fmt.Errorf("load: connection %d of %d: %w", id, n, err))
		}
		conns = append(conns, c)
		req = ep.appendRawPost(req[:0], "tools/call", "sleep", AppendSleep(nil, id, cfg.SleepMs))
		if _, err := c.Write(req); err != nil {
			return fail(err)
		}
		// One reader per connection: a response, before or after the
		// disconnect, is counted; the end of the connection is not.
		readers.Go(func() {
			f, resp, err := readRawResponse(bufio.NewReaderSize(c, 1024), func(f Frame) bool { return f.Method == "" })
			if resp == nil || err != nil && resp.StatusCode == http.StatusOK {
				// Closed, or answered with no JSON-RPC message (net/http
				// completes a response its handler left empty).
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if cancelSent {
				late++
				return
			}
			early++
			if err != nil || f.ErrorCode != 0 || f.IsError {
				earlyErrs++
			}
		})
	}

	if _, err := waitRunning(ctx, t, n, func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return early
	}); err != nil {
		return fail(err)
	}
	loaded, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	res.Started = loaded.Running
	if loaded.Running > 0 {
		res.HeapPerSleepB = (float64(loaded.HeapInuse) - float64(base.HeapInuse)) / float64(loaded.Running)
		res.StackPerSleepB = (float64(loaded.StackInuse) - float64(base.StackInuse)) / float64(loaded.Running)
	}

	// The storm: every connection's sending side shut, back to back.
	before, err := t.Stats(ctx, false)
	if err != nil {
		return fail(err)
	}
	mu.Lock()
	cancelSent = true
	res.Rejected = early
	mu.Unlock()
	t0 := time.Now()
	for _, c := range conns {
		if err := c.CloseWrite(); err != nil {
			return fail(fmt.Errorf("load: disconnecting: %w", err))
		}
	}
	res.SendMs = float64(time.Since(t0)) / float64(time.Millisecond)

	if err := awaitStormEnd(ctx, t, cfg, t0, before, n, &mu, &late, &earlyErrs, &res); err != nil {
		return fail(err)
	}
	return res, nil
}
