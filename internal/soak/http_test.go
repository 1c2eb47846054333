package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// httpClient is one HTTP worker's client: calls one at a time on its
// own keep-alive connections.
type httpClient struct {
	url string
	rep *report
	c   *http.Client
	id  int
}

func newHTTPClient(url string, rep *report) *httpClient {
	return &httpClient{url: url, rep: rep, c: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: clientIdleTimeout}}}
}

// clientIdleTimeout retires the client's idle connections well before the
// server's IdleTimeout (30 s) closes them: a POST sent on a connection the
// server is closing at that moment fails with EOF, and net/http does not
// retry a POST.
const clientIdleTimeout = 5 * time.Second

func (h *httpClient) close() { h.c.Transport.(*http.Transport).CloseIdleConnections() }

// post sends msg and returns the status, the final response frame (the
// one with an id; nil if none) and whether reading went wrong.
func (h *httpClient) post(ctx context.Context, msg []byte) (int, *frame, []byte, error) {
	req, err := testfixture.NewMCPRequest(ctx, h.url, msg)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	var frames [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r := testfixture.NewSSEReader(resp.Body)
		for {
			data, comment, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return resp.StatusCode, nil, nil, err
			}
			if !comment {
				frames = append(frames, data)
			}
		}
	} else {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return resp.StatusCode, nil, nil, err
		}
		if len(body) > 0 {
			frames = append(frames, body)
		}
	}
	var final *frame
	var raw []byte
	for _, b := range frames {
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			return resp.StatusCode, nil, b, fmt.Errorf("unparsable frame %.200q: %w", b, err)
		}
		if f.Method == "" {
			if final != nil {
				return resp.StatusCode, nil, b, fmt.Errorf("a second response in one reply: %.200s", b)
			}
			final, raw = &f, b
		}
	}
	return resp.StatusCode, final, raw, nil
}

func (h *httpClient) next() string {
	h.id++
	return fmt.Sprint(h.id)
}

// call posts one request that must get exactly one response of its kind.
func (h *httpClient) call(kind string, msg []byte) {
	h.rep.count("http " + kind)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	status, f, raw, err := h.post(ctx, msg)
	switch {
	case err != nil:
		h.rep.failf("http: %s: %v", kind, err)
	case f == nil:
		h.rep.failf("http: %s: status %d and no response", kind, status)
	case !expected(kind, f, status):
		h.rep.failf("http: %s: status %d, %.300s", kind, status, raw)
	}
}

// act sends one random action.
func (h *httpClient) act(rng *rand.Rand) {
	id := h.next()
	switch p := rng.IntN(100); {
	case p < 30:
		h.call("echo", toolCall(id, "echo", map[string]any{"text": "soak " + id}))
	case p < 40:
		h.call("slow", toolCall(id, "slow", map[string]any{"ms": rng.IntN(20)}))
	case p < 48:
		h.call("progress", testkit.Request(json.Number(id), "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "p" + id}}))
	case p < 52:
		h.call("boom", toolCall(id, "boom", nil))
	case p < 56:
		h.call("refuse", toolCall(id, "refuse", nil))
	case p < 66:
		method, params := readCall(rng)
		h.call("read", testkit.Request(json.Number(id), method, params))
	case p < 78:
		// The client goes away while its call runs.
		h.rep.count("http disconnect")
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+rng.IntN(10))*time.Millisecond)
		defer cancel()
		if status, f, _, err := h.post(ctx, toolCall(id, "hold", nil)); err == nil && f != nil {
			h.rep.failf("http: a call whose client left got a response (status %d)", status)
		}
	case p < 88:
		// A listen stream opens, is acknowledged, and its client leaves.
		h.rep.count("http listen")
		h.listen(id)
	case p < 96:
		h.rep.count("http bad frame")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		status, f, raw, err := h.post(ctx, []byte(`{"jsonrpc":"2.0","method":"tools/call","params":`))
		if err != nil || status != http.StatusBadRequest || f == nil || f.Error == nil || f.Error.Code != -32700 {
			h.rep.failf("http: a malformed body: status %d, %v, %.200s", status, err, raw)
		}
	default:
		h.rep.count("http oversized frame")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		body := append(toolCall(id, "echo", map[string]any{"text": strings.Repeat("x", maxLine)}), ' ')
		if status, _, _, err := h.post(ctx, body); err == nil && status != http.StatusRequestEntityTooLarge {
			h.rep.failf("http: a body over the limit: status %d, want 413", status)
		}
	}
}

func (h *httpClient) listen(id string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := testfixture.NewMCPRequest(ctx, h.url, testkit.Request(json.Number(id), "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	if err != nil {
		h.rep.failf("http: listen: %v", err)
		return
	}
	resp, err := h.c.Do(req)
	if err != nil {
		h.rep.failf("http: listen: %v", err)
		return
	}
	defer resp.Body.Close()
	data, _, err := testfixture.NewSSEReader(resp.Body).Next()
	if err != nil || !bytes.Contains(data, []byte("notifications/subscriptions/acknowledged")) {
		h.rep.failf("http: listen: status %d, first event %.200s, %v", resp.StatusCode, data, err)
	}
	cancel() // the client leaves; the stream ends on the server's side
}

// runHTTP is one HTTP worker: actions until stop.
func runHTTP(url string, rep *report, rng *rand.Rand, stop <-chan struct{}) {
	h := newHTTPClient(url, rep)
	defer h.close()
	for {
		select {
		case <-stop:
			return
		default:
			h.act(rng)
		}
	}
}
