package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// testWriter writes each line to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// The stdio mode serves what it reads and exits 0 at end of input.
func TestRunStdio(t *testing.T) {
	in := bytes.NewReader(append(testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}), '\n'))
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-transport", "stdio"}, in, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	c := testkit.NewClient(&out, io.Discard)
	frames := c.WaitClosed(t)
	c.CheckFrames(t)
	if len(frames) != 1 || !strings.Contains(string(frames[0].Result), `"text":"hi"`) {
		t.Fatalf("frames: %v", frames)
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-transport", "carrier-pigeon"}, {"-nonsense"}} {
		var errs bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if errs.Len() == 0 {
			t.Errorf("%v: nothing on stderr", args)
		}
	}
}

// Each HTTP mode prints its ready line once it accepts requests, serves
// MCP, and exits 0 when its input closes; so does the fixture behind a
// proxy.
func TestRunHTTPModes(t *testing.T) {
	for mode, args := range map[string][]string{
		"http":    {"-transport", "http"},
		"handler": {"-transport", "handler"},
		"proxy":   {"-transport", "http", "-proxy"},
	} {
		t.Run(mode, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			exit := make(chan int, 1)
			go func() {
				exit <- run(context.Background(), args, inR, outW, testWriter{t})
				outW.Close()
			}()
			lines := bufio.NewReader(outR)
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			var ready struct {
				Ready bool   `json:"conformanceReady"`
				URL   string `json:"url"`
			}
			if err := json.Unmarshal([]byte(line), &ready); err != nil || !ready.Ready || !strings.HasPrefix(ready.URL, "http://127.0.0.1:") || !strings.HasSuffix(ready.URL, "/mcp") {
				t.Fatalf("ready line %q", line)
			}
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()

			status, ctype, body := post(t, client, ready.URL, "echo", map[string]any{"text": "over HTTP"}, nil)
			if status != 200 || ctype != "application/json" || !strings.Contains(body, `"text":"over HTTP"`) {
				t.Errorf("echo: %d %s %s", status, ctype, body)
			}
			if err := testkit.ValidateFrame(testfixture.Version, []byte(body), "tools/call"); err != nil {
				t.Errorf("echo frame: %v", err)
			}
			status, ctype, body = post(t, client, ready.URL, "test_tool_with_progress", nil, map[string]any{"progressToken": "p"})
			if status != 200 || ctype != "text/event-stream" || strings.Count(body, "notifications/progress") != 3 {
				t.Errorf("progress: %d %s %s", status, ctype, body)
			}

			inW.Close()
			select {
			case code := <-exit:
				if code != 0 {
					t.Fatalf("exit %d", code)
				}
			case <-time.After(testkit.DefaultTimeout):
				t.Fatal("the server did not exit when its input closed")
			}
			_, _ = io.Copy(io.Discard, lines)
		})
	}
}

// post calls a tool over HTTP with the 2026-07-28 headers.
func post(t *testing.T, client *http.Client, url, tool string, args, meta map[string]any) (status int, contentType, body string) {
	t.Helper()
	params := map[string]any{"name": tool}
	if args != nil {
		params["arguments"] = args
	}
	if meta != nil {
		params["_meta"] = meta
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(testkit.Request(1, "tools/call", params)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", testfixture.Version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
