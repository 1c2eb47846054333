// Package floor is the work both floor servers do per request: decode one
// JSON-RPC tools/call echo with encoding/json and encode its answer. It
// checks nothing (no protocol version, no schema, no capabilities) and
// keeps no state, so a floor server measures what transport, decoding and
// encoding alone cost; every library server does at least this much.
package floor

import (
	"encoding/json"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
)

// Request is the part of a JSON-RPC request the floor reads.
type Request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		Name      string             `json:"name"`
		Arguments benchtool.EchoArgs `json:"arguments"`
	} `json:"params"`
}

// Response is a JSON-RPC response: an echo's result or an error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *Result         `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Result is a tools/call result with one text block.
type Result struct {
	Content []Text `json:"content"`
}

// Text is a text content block.
type Text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// MethodNotFound is the JSON-RPC code the floor answers anything but a
// tools/call of echo with, so a scenario that needs more fails visibly.
const MethodNotFound = -32601

// Answer is the response to req: the echoed text for a tools/call of
// echo, MethodNotFound for anything else. ok is false for a notification
// (no id), which gets no response.
func Answer(req *Request) (resp Response, ok bool) {
	if len(req.ID) == 0 {
		return Response{}, false
	}
	resp = Response{JSONRPC: "2.0", ID: req.ID}
	if req.Method != "tools/call" || req.Params.Name != benchtool.EchoTool {
		resp.Error = &Error{Code: MethodNotFound, Message: "floor: only tools/call echo"}
		return resp, true
	}
	resp.Result = &Result{Content: []Text{{Type: "text", Text: req.Params.Arguments.Text}}}
	return resp, true
}
