package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// session is what the walk needs from a client connected to a server:
// each client under test (go-sdk, mcp-go, the TypeScript SDKs through a
// Node.js driver) implements it with its own API. Results come back in
// the neutral shapes below, so one walk checks every client alike.
type session interface {
	// Negotiated is the protocol version in use and the server's name.
	Negotiated() (version, server string)
	Ping(ctx context.Context) error
	ListTools(ctx context.Context, cursor string) (page, error)
	// AllTools lists the tools the way the client's own helper does,
	// following cursors.
	AllTools(ctx context.Context) ([]string, error)
	CallTool(ctx context.Context, name string, args map[string]any, progress bool) (*toolResult, error)
	ListResources(ctx context.Context, cursor string) (page, error)
	ListTemplates(ctx context.Context, cursor string) (page, error)
	ReadResource(ctx context.Context, uri string) ([]contents, error)
	ListPrompts(ctx context.Context, cursor string) (page, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) ([]block, error)
	Complete(ctx context.Context, prompt, arg, value string) ([]string, error)
	SetLogLevel(ctx context.Context, level string) error
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
	// Events are the notifications the client has passed to its
	// handlers, in order of arrival.
	Events() *events
	// Frames are the JSON-RPC messages the client sent and received, as
	// its transport saw them.
	Frames() *frames
	Close() error
}

// page is one page of a list: the names (URIs for resources, URI
// templates for templates) and the next cursor.
type page struct {
	Names []string
	Next  string
}

// block is one content block.
type block struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
	URI      string `json:"uri,omitempty"` // an embedded resource's or a resource link's
}

type toolResult struct {
	Content    []block `json:"content"`
	Structured any     `json:"structuredContent,omitempty"`
	IsError    bool    `json:"isError,omitempty"`
}

// text joins the text blocks.
func (r *toolResult) text() string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

type contents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// rpcError is a JSON-RPC error a client surfaced, when its code could be
// read.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// errorCode returns the JSON-RPC code inside err, or 0.
func errorCode(err error) int64 {
	var re *rpcError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// event is one notification a client handed to the application.
type event struct {
	Method   string  `json:"method"`
	Progress float64 `json:"progress,omitempty"` // notifications/progress
	Total    float64 `json:"total,omitempty"`
	Level    string  `json:"level,omitempty"` // notifications/message
	Data     string  `json:"data,omitempty"`
	URI      string  `json:"uri,omitempty"` // notifications/resources/updated
}

// events records notifications; a test waits for one with a deadline.
type events struct {
	mu      sync.Mutex
	list    []event
	changed chan struct{}
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) add(ev event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// snapshot returns the events so far.
func (e *events) snapshot() []event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]event(nil), e.list...)
}

// count is how many events so far match.
func (e *events) count(match func(event) bool) int {
	n := 0
	for _, ev := range e.snapshot() {
		if match(ev) {
			n++
		}
	}
	return n
}

// wait returns once n events match, or an error at the deadline.
func (e *events) wait(timeout time.Duration, n int, match func(event) bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		got := 0
		for _, ev := range e.list {
			if match(ev) {
				got++
			}
		}
		changed := e.changed
		e.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("%d of %d awaited notifications within %s; received %v", got, n, timeout, e.snapshot())
		}
	}
}

func method(m string) func(event) bool { return func(ev event) bool { return ev.Method == m } }

// frames records the JSON-RPC messages a client's transport carried.
type frames struct {
	mu      sync.Mutex
	sent    []json.RawMessage
	recv    []json.RawMessage
	changed chan struct{} // closed and replaced at each record
}

func (f *frames) record(sent bool, msg []byte) {
	msg = []byte(strings.TrimSpace(string(msg)))
	if len(msg) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.changed != nil {
		close(f.changed)
	}
	f.changed = make(chan struct{})
	if sent {
		f.sent = append(f.sent, append(json.RawMessage(nil), msg...))
	} else {
		f.recv = append(f.recv, append(json.RawMessage(nil), msg...))
	}
}

// wireMessage is the envelope of a recorded frame.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// decode splits a recorded frame (a batch or one message).
func decode(raw json.RawMessage) []wireMessage {
	var batch []wireMessage
	if json.Unmarshal(raw, &batch) == nil {
		return batch
	}
	var one wireMessage
	if json.Unmarshal(raw, &one) == nil {
		return []wireMessage{one}
	}
	return nil
}

// sentRequests returns the ids of the requests sent with this method
// whose params contain every fragment.
func (f *frames) sentRequests(method string, fragments ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, raw := range f.sent {
		for _, m := range decode(raw) {
			if m.Method != method || len(m.ID) == 0 {
				continue
			}
			ok := true
			for _, frag := range fragments {
				ok = ok && strings.Contains(string(m.Params), frag)
			}
			if ok {
				ids = append(ids, string(m.ID))
			}
		}
	}
	return ids
}

// responsesTo returns the responses received for a request id.
func (f *frames) responsesTo(id string) []json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []json.RawMessage
	for _, raw := range f.recv {
		for _, m := range decode(raw) {
			if m.Method == "" && string(m.ID) == id {
				out = append(out, raw)
			}
		}
	}
	return out
}

// waitSent returns once n requests with this method whose params contain
// every fragment have been sent, or an error at the deadline.
func (f *frames) waitSent(timeout time.Duration, n int, method string, fragments ...string) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		changed := f.changed
		f.mu.Unlock()
		got := len(f.sentRequests(method, fragments...))
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("%d of %d %s requests sent within %s", got, n, method, timeout)
		}
	}
}

// lastSent returns the id of the last request sent with this method
// whose params contain every fragment, or "".
func (f *frames) lastSent(method string, fragments ...string) string {
	ids := f.sentRequests(method, fragments...)
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

// received returns the messages received, in order, up to and including
// the response to id (all of them if it has none).
func (f *frames) received(id string) []wireMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []wireMessage
	for _, raw := range f.recv {
		for _, m := range decode(raw) {
			out = append(out, m)
			if m.Method == "" && string(m.ID) == id {
				return out
			}
		}
	}
	return out
}

// wireErrorCode is the error code of the response to id, 0 without one.
func (f *frames) wireErrorCode(id string) int64 {
	msgs := f.received(id)
	if len(msgs) == 0 {
		return 0
	}
	last := msgs[len(msgs)-1]
	if last.Method != "" || string(last.ID) != id || len(last.Error) == 0 {
		return 0
	}
	var e rpcError
	_ = json.Unmarshal(last.Error, &e)
	return e.Code
}
