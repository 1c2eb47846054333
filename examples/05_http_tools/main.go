// Command 05_http_tools serves a few tools over Streamable HTTP with the
// native listener and prints its URL:
//
//	go run ./examples/05_http_tools -addr 127.0.0.1:4000
//
// With -check it starts on an ephemeral port, acts as a client over real
// HTTP (server/discover, tools/list, tools/call with and without
// progress, and a refused request), and exits non-zero on any failure:
//
//	go run ./examples/05_http_tools -check
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func main() { excheck.MainHTTP("127.0.0.1:4000", run) }

// run serves on addr until ctx ends or, with check, exercises the server
// as a client over real HTTP and returns the first failure.
func run(ctx context.Context, logger *slog.Logger, addr string, check bool) error {
	rt, err := newRuntime(logger)
	if err != nil {
		return fmt.Errorf("invalid server definition: %w", err)
	}
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithAddr(addr))
	if err != nil {
		return err
	}
	fmt.Println(srv.URL())
	if check {
		err = runChecks(srv.URL())
	} else {
		select {
		case <-ctx.Done():
		case <-srv.Done():
		}
	}
	// Drain: requests in flight finish, new ones get 503.
	return errors.Join(err, srv.Shutdown(context.Background()))
}

func newRuntime(logger *slog.Logger) (*dispatch.Runtime, error) {
	textSchema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	return dispatch.New(
		mcp.Implementation{Name: "http-tools", Version: "0.1.0", Title: "snodo HTTP tools"},
		dispatch.WithLogger(logger),
		dispatch.WithInstructions("Tools: echo repeats text, upper upper-cases it, count counts to n with progress."),
		dispatch.WithTool(mcp.Tool{Name: "echo", Description: "Returns the text it is given.", InputSchema: textSchema},
			textTool(func(s string) string { return s })),
		dispatch.WithTool(mcp.Tool{Name: "upper", Description: "Returns the text in upper case.", InputSchema: textSchema},
			textTool(strings.ToUpper)),
		dispatch.WithTool(mcp.Tool{
			Name:        "count",
			Description: "Counts to n, reporting progress at each step.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100}},"required":["n"]}`),
		}, countTool),
	)
}

func textTool(f func(string) string) dispatch.ToolHandler {
	return func(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		return mcp.TextResult(f(args.Text)), nil
	}
}

// countTool reports progress; over HTTP the response then becomes an
// event stream carrying each report before the result.
func countTool(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil || args.N < 1 || args.N > 100 {
		return mcp.ErrorResult("n must be an integer from 1 to 100"), nil
	}
	for i := 1; i <= args.N; i++ {
		if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(args.N)}); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult(fmt.Sprintf("counted to %d", args.N)), nil
}

// client is the smallest 2026-07-28 Streamable HTTP client: one POST per
// request, with the headers that mirror the body.
type client struct {
	url    string
	http   *http.Client
	nextID int
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one request and returns the HTTP status and every message of
// the answer (notifications first, the response last).
func (c *client) call(method string, params map[string]any, progress bool) (int, []message, error) {
	c.nextID++
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "05_http_tools-check", "version": "0.1.0"},
	}
	if progress {
		meta["progressToken"] = c.nextID
	}
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = meta
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	msgs, err := readMessages(resp)
	return resp.StatusCode, msgs, err
}

// readMessages decodes a JSON body, or each data line of an event stream.
func readMessages(resp *http.Response) ([]message, error) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var raws [][]byte
	switch mt {
	case "application/json":
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		raws = append(raws, b)
	case "text/event-stream":
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raws = append(raws, []byte(data))
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unexpected content type %q", mt)
	}
	msgs := make([]message, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &msgs[i]); err != nil {
			return nil, fmt.Errorf("message %q: %w", raw, err)
		}
	}
	return msgs, nil
}

func runChecks(url string) error {
	c := &client{url: url, http: &http.Client{Timeout: 10 * time.Second}}

	status, msgs, err := c.call("server/discover", nil, false)
	if err := expect("server/discover", status, msgs, err, 200); err != nil {
		return err
	}
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(msgs[0].Result, &disc) != nil || len(disc.SupportedVersions) == 0 || disc.SupportedVersions[0] != "2026-07-28" {
		return fmt.Errorf("server/discover: unexpected result %s", msgs[0].Result)
	}

	status, msgs, err = c.call("tools/list", nil, false)
	if err := expect("tools/list", status, msgs, err, 200); err != nil {
		return err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(msgs[0].Result, &list) != nil || len(list.Tools) != 3 {
		return fmt.Errorf("tools/list: unexpected result %s", msgs[0].Result)
	}

	status, msgs, err = c.call("tools/call", map[string]any{"name": "upper", "arguments": map[string]any{"text": "over http"}}, false)
	if err := expect("tools/call upper", status, msgs, err, 200); err != nil {
		return err
	}
	if !bytes.Contains(msgs[0].Result, []byte("OVER HTTP")) {
		return fmt.Errorf("tools/call upper: unexpected result %s", msgs[0].Result)
	}

	status, msgs, err = c.call("tools/call", map[string]any{"name": "count", "arguments": map[string]any{"n": 3}}, true)
	if err != nil || status != 200 || len(msgs) != 4 || msgs[0].Method != "notifications/progress" || !bytes.Contains(msgs[3].Result, []byte("counted to 3")) {
		return fmt.Errorf("tools/call count with progress: status %d, %d messages, %v", status, len(msgs), err)
	}

	status, msgs, err = c.call("tools/call", map[string]any{"name": "missing"}, false)
	if err != nil || status != 400 || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != -32602 {
		return fmt.Errorf("tools/call of an unknown tool: want 400 with -32602, got status %d, %v", status, err)
	}
	fmt.Println("discover, list, call, progress and refusal: ok")
	return nil
}

func expect(what string, status int, msgs []message, err error, want int) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	case status != want:
		return fmt.Errorf("%s: status %d, want %d", what, status, want)
	case len(msgs) != 1:
		return fmt.Errorf("%s: %d messages, want 1", what, len(msgs))
	case msgs[0].Error != nil:
		return fmt.Errorf("%s: error %d %s", what, msgs[0].Error.Code, msgs[0].Error.Message)
	}
	return nil
}
