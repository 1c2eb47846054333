package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPLoad configures a keep-alive HTTP run.
type HTTPLoad struct {
	// Clients is K: each client loops one request at a time on its own
	// keep-alive connection.
	Clients int
	// Warmup runs before the measured window; Duration is the window.
	Warmup, Duration time.Duration
	// Text is the echo text (DefaultEchoText when empty).
	Text string
}

// NewHTTPRequest builds a 2026-07-28 POST with every header the revision
// requires of a tools/call.
func NewHTTPRequest(ctx context.Context, url string, body []byte, method, name string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", ProtocolVersion)
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return req, nil
}

// ReadHTTPResponse returns the JSON-RPC response in an HTTP reply, whether
// the reply is application/json or an SSE stream.
func ReadHTTPResponse(resp *http.Response) (Frame, error) {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			f, err := ParseFrame([]byte(strings.TrimSpace(data)))
			if err != nil {
				return Frame{}, err
			}
			if f.Method == "" {
				return f, nil
			}
		}
		return Frame{}, fmt.Errorf("load: SSE stream ended without a response (HTTP %d)", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Frame{}, err
	}
	f, err := ParseFrame(b)
	if err != nil {
		return Frame{}, fmt.Errorf("load: HTTP %d: %q", resp.StatusCode, truncate(b))
	}
	return f, nil
}

func truncate(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// RunHTTP runs cfg.Clients keep-alive clients calling echo back to back
// and reports what completed in the window.
func RunHTTP(ctx context.Context, t *Target, cfg HTTPLoad) (Result, error) {
	res := Result{Scenario: "http", Param: cfg.Clients}
	if cfg.Text == "" {
		cfg.Text = DefaultEchoText
	}
	tr := &http.Transport{
		MaxIdleConns:        cfg.Clients,
		MaxIdleConnsPerHost: cfg.Clients,
		MaxConnsPerHost:     cfg.Clients,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var (
		ids      atomic.Int64
		inWindow atomic.Bool
		stop     atomic.Bool
		mu       sync.Mutex
		lat      = make([]time.Duration, 0, 1<<16)
		errs     int64
		firstErr error
		wg       sync.WaitGroup
	)
	for range cfg.Clients {
		wg.Go(func() {
			var body []byte
			var mine []time.Duration
			var myErrs int64
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				errs += myErrs
				mu.Unlock()
			}()
			for !stop.Load() {
				body = AppendEcho(body[:0], ids.Add(1), cfg.Text)
				req, err := NewHTTPRequest(ctx, t.URL, body, "tools/call", "echo")
				if err != nil {
					return
				}
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					if firstErr == nil && !stop.Load() {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				f, err := ReadHTTPResponse(resp)
				resp.Body.Close()
				el := time.Since(start)
				if err != nil || f.ErrorCode != 0 || f.IsError || resp.StatusCode != http.StatusOK {
					myErrs++ // in the warm-up too
				}
				if inWindow.Load() {
					mine = append(mine, el)
				}
			}
		})
	}
	finish := func() {
		stop.Store(true)
		wg.Wait()
	}
	select {
	case <-time.After(cfg.Warmup):
	case <-ctx.Done():
		finish()
		return res, ctx.Err()
	}
	cpu0, _ := cpuOf(t)
	inWindow.Store(true)
	start := time.Now()
	time.Sleep(cfg.Duration)
	inWindow.Store(false)
	secs := time.Since(start).Seconds()
	cpu1, cpuErr := cpuOf(t)
	finish()
	if firstErr != nil {
		res.Err = firstErr.Error()
		return res, firstErr
	}
	n := int64(len(lat))
	if n == 0 {
		err := errors.New("load: no request completed in the window")
		res.Err = err.Error()
		return res, err
	}
	res.Requests, res.Errors, res.Seconds = n, errs, secs
	res.Throughput = float64(n) / secs
	latencyStats(&res, lat)
	if cpuErr == nil && t.PID != 0 {
		res.CPUPerReq = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(n)
	}
	return res, nil
}
