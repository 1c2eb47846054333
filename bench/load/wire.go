// Package load drives MCP servers over the wire (no SDK) and measures
// them: pipelined stdio load, keep-alive HTTP load, a cancellation storm,
// and idle subscriptions/listen streams. Every request uses protocol
// revision 2026-07-28 (stateless: no initialize, _meta on every request),
// byte for byte the same for every server.
package load

import (
	"encoding/json"
	"strconv"
)

// ProtocolVersion is the revision every request names.
const ProtocolVersion = "2026-07-28"

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}`

// DefaultEchoText is the text the echo load sends (ASCII, so no server
// pays for escaping that another does not).
const DefaultEchoText = "The quick brown fox jumps over the lazy dog, 0123456789."

// AppendEcho appends a tools/call echo request (no newline).
func AppendEcho(b []byte, id int64, text string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":`...)
	t, _ := json.Marshal(text)
	b = append(b, t...)
	b = append(b, `},`+meta+`}}`...)
	return b
}

// AppendSleep appends a tools/call sleep request (no newline).
func AppendSleep(b []byte, id, ms int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":`...)
	b = strconv.AppendInt(b, ms, 10)
	b = append(b, `},`+meta+`}}`...)
	return b
}

// AppendListen appends a subscriptions/listen request asking for tool
// list changes (no newline).
func AppendListen(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+meta+`}}`...)
	return b
}

// taskMeta is meta with the tasks extension declared in the client's
// capabilities, so a tool that may run as a task does.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}`

// AppendTaskEcho appends a tools/call echo request that declares the
// tasks extension (no newline): a server that runs echo as a task answers
// with a task handle.
func AppendTaskEcho(b []byte, id int64, text string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":`...)
	t, _ := json.Marshal(text)
	b = append(b, t...)
	b = append(b, `},`+taskMeta+`}}`...)
	return b
}

// AppendTaskGet appends a tasks/get request for taskID (no newline).
func AppendTaskGet(b []byte, id int64, taskID string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tasks/get","params":{"taskId":`...)
	t, _ := json.Marshal(taskID)
	b = append(b, t...)
	b = append(b, `,`+taskMeta+`}}`...)
	return b
}

// AppendCancel appends a notifications/cancelled for id (no newline).
func AppendCancel(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"reason":"load: storm"}}`...)
	return b
}

// Frame is what the driver reads from one server message.
type Frame struct {
	// ID is the response's id, or -1 for notifications and non-integer
	// ids.
	ID int64
	// Method is set on notifications.
	Method string
	// ErrorCode is the JSON-RPC error code, 0 for results.
	ErrorCode int64
	// IsError is a tool result's isError.
	IsError bool
	// SubscriptionID is params._meta's subscription id on notifications.
	SubscriptionID int64
	// TaskID and TaskStatus are a task handle's or tasks/get result's
	// taskId and status (empty in any other result).
	TaskID, TaskStatus string
}

type wireFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
	Result *struct {
		IsError bool   `json:"isError"`
		TaskID  string `json:"taskId"`
		Status  string `json:"status"`
	} `json:"result"`
	Params *struct {
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	} `json:"params"`
}

// ParseFrame decodes one server message.
func ParseFrame(line []byte) (Frame, error) {
	var w wireFrame
	if err := json.Unmarshal(line, &w); err != nil {
		return Frame{}, err
	}
	f := Frame{ID: parseIntID(w.ID), Method: w.Method, SubscriptionID: -1}
	if w.Error != nil {
		f.ErrorCode = w.Error.Code
	}
	if w.Result != nil {
		f.IsError = w.Result.IsError
		f.TaskID, f.TaskStatus = w.Result.TaskID, w.Result.Status
	}
	if w.Params != nil {
		f.SubscriptionID = parseIntID(w.Params.Meta.SubscriptionID)
	}
	return f, nil
}

func parseIntID(raw json.RawMessage) int64 {
	if len(raw) == 0 {
		return -1
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
