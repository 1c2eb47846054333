package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// msg is one JSON-RPC message the client reads.
type msg struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		URI           string                     `json:"uri"`
		RequestID     json.RawMessage            `json:"requestId"`
		Notifications map[string]any             `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parse(line []byte) (msg, error) {
	var m msg
	err := json.Unmarshal(line, &m)
	m.raw = string(line)
	return m, err
}

// stream is the listen id a notification is tagged with (JSON text).
func (m msg) stream() string {
	return string(m.Params.Meta["io.modelcontextprotocol/subscriptionId"])
}

// request encodes a 2026-07-28 request: every request carries the
// protocol version and the client's capabilities in _meta.
func request(id any, method string, params map[string]any) []byte {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b
}

// listenRequest opens a stream for tool-list changes and updates of the
// notes.
func listenRequest(id any) []byte {
	return request(id, "subscriptions/listen", map[string]any{"notifications": map[string]any{
		"toolsListChanged":      true,
		"resourceSubscriptions": []string{notesURI},
	}})
}

func callRequest(id any, tool string, args map[string]any) []byte {
	return request(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// inbox keeps the messages a transport delivered, so a test can wait for
// one without losing the others.
type inbox struct {
	ch   <-chan msg
	seen []msg
}

const wait = 10 * time.Second

// await returns the first message after index from (-1: from the start)
// that matches, and its index.
func (in *inbox) await(what string, from int, match func(msg) bool) (msg, int, error) {
	for i := from + 1; i < len(in.seen); i++ {
		if match(in.seen[i]) {
			return in.seen[i], i, nil
		}
	}
	deadline := time.After(wait)
	for {
		select {
		case m, ok := <-in.ch:
			if !ok {
				return msg{}, -1, fmt.Errorf("%s: the server closed the stream first", what)
			}
			in.seen = append(in.seen, m)
			if match(m) {
				return m, len(in.seen) - 1, nil
			}
		case <-deadline:
			return msg{}, -1, fmt.Errorf("%s: timed out", what)
		}
	}
}

func isMethod(method, stream string) func(msg) bool {
	return func(m msg) bool { return m.Method == method && m.stream() == stream }
}

func isResponse(id string) func(msg) bool {
	return func(m msg) bool { return m.Method == "" && string(m.ID) == id }
}
