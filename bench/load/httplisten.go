package load

// Idle subscriptions/listen streams over Streamable HTTP: each stream is
// one long-lived POST on its own connection.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// fileMargin is the open files kept free beside the connections of a
// scenario (the stats client, pipes, the binary, the Go runtime).
const fileMargin = 256

// RunHTTPListen opens cfg.Streams idle subscriptions/listen streams on
// t's Streamable HTTP endpoint, each a POST on its own connection, 50 at
// a time, each batch once the previous one is acknowledged; then it
// reports the live heap and resident memory each stream costs, as
// RunListen does on stdio, and ends the streams by closing their
// connections. A server that answers the first listen with -32601 (or
// HTTP 404 or 405) does not support it (ErrUnsupported).
//
// When the open-file limit cannot hold cfg.Streams connections (the
// driver and the server each hold one per stream), fewer are opened:
// res.Streams says how many, and res.Param how many were asked for.
func RunHTTPListen(ctx context.Context, t *Target, cfg ListenConfig) (Result, error) {
	res := Result{Scenario: "httplisten", Param: cfg.Streams}
	fail := func(err error) (Result, error) {
		res.Err = err.Error()
		return res, err
	}
	ep, err := parseEndpoint(t.URL)
	if err != nil {
		return fail(err)
	}
	n := int64(cfg.Streams)
	if lim, err := FileLimit(); err == nil && uint64(n)+fileMargin > lim {
		n = int64(lim) - fileMargin
		if n < 1 {
			return fail(fmt.Errorf("load: an open-file limit of %d leaves no room for listen streams", lim))
		}
	}
	base, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	var rss0 int64
	if t.PID != 0 {
		_, rss0, _ = ProcMem(t.PID)
	}
	conns := make([]*net.TCPConn, 0, n)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	deadline := time.Now().Add(cfg.Timeout)
	const listenBatch = 50
	var req []byte
	for next := int64(1); next <= n; {
		end := min(next+listenBatch-1, n)
		batch := make([]*net.TCPConn, 0, end-next+1)
		for id := next; id <= end; id++ {
			c, err := ep.dial()
			if err != nil {
				return fail(fmt.Errorf("load: connection %d of %d: %w", id, n, err))
			}
			conns = append(conns, c)
			batch = append(batch, c)
			req = ep.appendRawPost(req[:0], "subscriptions/listen", "", AppendListen(nil, id))
			if _, err := c.Write(req); err != nil {
				return fail(err)
			}
		}
		errs := make([]error, len(batch))
		var wg sync.WaitGroup
		for i, c := range batch {
			wg.Go(func() { errs[i] = awaitAck(c, deadline) })
		}
		wg.Wait()
		for i, err := range errs {
			if err == nil {
				continue
			}
			if IsUnsupported(err) {
				res.Unsupported = true
				return res, err
			}
			return fail(fmt.Errorf("load: listen stream %d of %d: %w", next+int64(i), n, err))
		}
		next = end + 1
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
	}
	loaded, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	res.Streams = n
	res.HeapPerStreamB = (float64(loaded.HeapInuse) - float64(base.HeapInuse)) / float64(n)
	res.StackPerStreamB = (float64(loaded.StackInuse) - float64(base.StackInuse)) / float64(n)
	res.GoroutinesPerSt = float64(loaded.Goroutines-base.Goroutines) / float64(n)
	if t.PID != 0 {
		var rss1 int64
		res.PeakRSSKiB, rss1, _ = ProcMem(t.PID)
		res.RSSPerStreamB = float64(rss1-rss0) * 1024 / float64(n)
	}
	return res, nil
}

// awaitAck reads a listen stream's reply on c until its acknowledgement,
// by deadline, then leaves the connection idle (its reader is dropped; a
// keepalive the server writes later waits in the socket's buffer).
func awaitAck(c *net.TCPConn, deadline time.Time) error {
	if err := c.SetReadDeadline(deadline); err != nil {
		return err
	}
	f, resp, err := readRawResponse(bufio.NewReaderSize(c, 1024), func(f Frame) bool {
		return f.Method == "notifications/subscriptions/acknowledged" || f.ErrorCode != 0
	})
	if resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed) {
		return fmt.Errorf("%w: subscriptions/listen answered with HTTP %d", ErrUnsupported, resp.StatusCode)
	}
	if err != nil {
		return err
	}
	switch {
	case f.ErrorCode == -32601:
		return fmt.Errorf("%w: subscriptions/listen answered with error %d", ErrUnsupported, f.ErrorCode)
	case f.ErrorCode != 0:
		return fmt.Errorf("subscriptions/listen answered with error %d (HTTP %d)", f.ErrorCode, resp.StatusCode)
	case f.Method != "notifications/subscriptions/acknowledged":
		return fmt.Errorf("subscriptions/listen answered without an acknowledgement (HTTP %d)", resp.StatusCode)
	}
	return c.SetReadDeadline(time.Time{})
}
