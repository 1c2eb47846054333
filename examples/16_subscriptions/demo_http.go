package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// httpDemo runs the native listener in this process and listens over an
// event stream.
func httpDemo(say func(string, ...any), logger *slog.Logger) (failures []string) {
	fail := func(format string, args ...any) { failures = append(failures, "http: "+fmt.Sprintf(format, args...)) }
	s, err := newServer(logger)
	if err != nil {
		return []string{err.Error()}
	}
	srv, err := streamablehttp.Listen(s.rt, streamablehttp.WithAddr("127.0.0.1:0"))
	if err != nil {
		return []string{err.Error()}
	}
	defer srv.Close()
	url := srv.URL()

	say("http 1. POST subscriptions/listen: the response is an event stream that stays open.")
	resp, err := post(context.Background(), url, listenRequest(7))
	if err != nil {
		fail("%v", err)
		return failures
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		fail("listen answered %d %q", resp.StatusCode, ct)
		return failures
	}
	ch := make(chan msg, 16)
	go readEvents(resp.Body, ch)
	in := &inbox{ch: ch}
	ack, _, err := in.await("acknowledgement", -1, isMethod("notifications/subscriptions/acknowledged", "7"))
	if err != nil {
		fail("%v", err)
		return failures
	}
	say("   %s", ack.raw)

	say("http 2. Another POST calls add_tool \"wave\"; the open stream gets tools/list_changed.")
	if r, err := postJSON(url, callRequest(1, "add_tool", map[string]any{"name": "wave"})); err != nil || r.Error != nil {
		fail("add_tool: %v %s", err, r.raw)
	}
	if ev, _, err := in.await("tools/list_changed", -1, isMethod("notifications/tools/list_changed", "7")); err != nil {
		fail("%v", err)
	} else {
		say("   %s", ev.raw)
	}
	if r, err := postJSON(url, request(2, "tools/list", nil)); err != nil || !strings.Contains(string(r.Result), `"name":"wave"`) {
		fail("tools/list after add_tool: %v %s", err, r.raw)
	}

	say("http 3. Shutdown drains: the stream ends with its final result.")
	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Shutdown(context.Background()) }()
	if final, _, err := in.await("final result", -1, isResponse("7")); err != nil || final.Result == nil {
		fail("final result: %v %s", err, final.raw)
	} else {
		say("   %s", final.raw)
	}
	if err := <-shutdown; err != nil {
		fail("shutdown: %v", err)
	}
	return failures
}

// post sends one MCP request with the headers 2026-07-28 requires.
func post(ctx context.Context, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var head struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &head)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", head.Method)
	if head.Method == "tools/call" {
		req.Header.Set("Mcp-Name", head.Params.Name)
	}
	return http.DefaultClient.Do(req)
}

// postJSON sends a request answered with one JSON response.
func postJSON(url string, body []byte) (msg, error) {
	resp, err := post(context.Background(), url, body)
	if err != nil {
		return msg{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return msg{}, err
	}
	return parse(b)
}

// readEvents parses the data lines of an event stream into ch, skipping
// comments (keepalives).
func readEvents(r io.Reader, ch chan<- msg) {
	defer close(ch)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if m, err := parse([]byte(data)); err == nil {
			ch <- m
		}
	}
}
