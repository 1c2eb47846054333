// Package excheck is what the examples share: their main functions (flags,
// the -check mode that CI and each example's test run, signals, serving
// over stdio) and an in-process 2026-07-28 client that validates every
// response against the official MCP schema. It is not part of the
// library; an application would use its own client or package testkit in
// its tests.
package excheck

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/testkit"
)

// Direct calls a Runtime in process, with no transport, the way a client
// would: one JSON-RPC request at a time, each response checked against
// the official schema.
type Direct struct {
	RT *dispatch.Runtime
	// Setup, when set, fills in transport fields (principal, headers) on
	// each request.
	Setup func(*dispatch.Request)
	next  int
}

// Response is one decoded response.
type Response struct {
	Result map[string]any
	Error  *Error
	Raw    []byte
}

// Error is a JSON-RPC error.
type Error struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// Call sends method with params (and the required _meta, merged with any
// params["_meta"]) and returns the response.
func (d *Direct) Call(ctx context.Context, method string, params map[string]any) (*Response, error) {
	d.next++
	msg, err := jsonrpc.Decode(testkit.Request(d.next, method, maps.Clone(params)))
	if err != nil {
		return nil, err
	}
	req := &dispatch.Request{Message: msg}
	if d.Setup != nil {
		d.Setup(req)
	}
	frame := d.RT.Dispatch(ctx, req).Frame
	if err := testkit.ValidateFrame(testfixture.Version, frame, method); err != nil {
		return nil, fmt.Errorf("%s: response fails the official schema: %w\n%s", method, err, frame)
	}
	var resp struct {
		Result map[string]any `json:"result"`
		Error  *Error         `json:"error"`
	}
	if err := json.Unmarshal(frame, &resp); err != nil {
		return nil, err
	}
	return &Response{Result: resp.Result, Error: resp.Error, Raw: frame}, nil
}

// Result is Call for a request that must succeed: an error response is
// returned as an error.
func (d *Direct) Result(ctx context.Context, method string, params map[string]any) (map[string]any, error) {
	r, err := d.Call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result, nil
}

// Fail is Call for a request that must fail with code; it returns the
// error object.
func (d *Direct) Fail(ctx context.Context, method string, params map[string]any, code int64) (*Error, error) {
	r, err := d.Call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if r.Error == nil || r.Error.Code != code {
		return nil, fmt.Errorf("%s: want error %d, got %s", method, code, r.Raw)
	}
	return r.Error, nil
}

// Text returns the text of a tool result's or prompt message's first
// content block, or "".
func Text(result map[string]any) string {
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	block, _ := content[0].(map[string]any)
	s, _ := block["text"].(string)
	return s
}

// Expect returns an error built from format and args unless ok holds.
func Expect(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}
