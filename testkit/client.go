// This file is the raw newline-delimited JSON-RPC client and the frames
// it records.

package testkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Frame is one message the server sent, decoded as far as tests need.
type Frame struct {
	// Raw is the frame's bytes, without the newline.
	Raw []byte `json:"-"`
	// ID is the id as its JSON text (7, "a", null); nil for a
	// notification.
	ID json.RawMessage `json:"id"`
	// Method is set for a notification or a server-to-client request,
	// and empty for a response (f.Method == "" tells a response).
	Method string `json:"method"`
	// Params are a notification's or request's params.
	Params json.RawMessage `json:"params"`
	// Result is a successful response's result.
	Result json.RawMessage `json:"result"`
	// Error is an error response's error.
	Error *FrameError `json:"error"`
}

// FrameError is the error member of an error response.
type FrameError struct {
	// Code is the JSON-RPC error code.
	Code int64 `json:"code"`
	// Message is the error's message.
	Message string `json:"message"`
	// Data is the error's data, when it has any.
	Data json.RawMessage `json:"data"`
}

// DefaultTimeout bounds each wait of the helpers: a response awaited, a
// tree condition, a server's end.
const DefaultTimeout = 10 * time.Second

// decodeFrame decodes raw (kept as f.Raw, copied) into a Frame.
func decodeFrame(raw []byte) (*Frame, error) {
	f := &Frame{}
	err := json.Unmarshal(raw, f)
	f.Raw = append([]byte(nil), raw...)
	return f, err
}

// Client is a tiny newline-delimited JSON-RPC client for tests. Every
// frame it reads is recorded in order and checked against the official
// schema of its revision (2026-07-28 unless SetVersion says otherwise).
type Client struct {
	w       io.Writer
	version string
	nextID  atomic.Int64

	mu       sync.Mutex
	frames   []*Frame
	methods  map[string]string // request id JSON → method
	bad      []string          // schema failures and unreadable frames
	changed  chan struct{}     // closed and replaced on every change
	readErr  error
	readDone chan struct{}
	writeMu  sync.Mutex
	stopping atomic.Bool // see ExpectStop
}

// NewClient reads frames from r until it ends, and writes requests to w.
// Close r (or let the server close it) to stop the reader.
func NewClient(r io.Reader, w io.Writer) *Client {
	c := &Client{w: w, version: defaultVersion, methods: map[string]string{}, changed: make(chan struct{}), readDone: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *Client) read(r io.Reader) {
	defer close(c.readDone)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		raw, err := br.ReadBytes('\n')
		if err != nil {
			if len(raw) > 0 && !c.stopping.Load() {
				// The server writes every frame whole, newline included;
				// only a server stopped in the middle of a write (which
				// abandons that write) may leave a frame cut short.
				c.mu.Lock()
				c.bad = append(c.bad, fmt.Sprintf("frame cut off at the end of output: %q", raw))
				c.mu.Unlock()
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			c.mu.Lock()
			c.readErr = err
			c.notify()
			c.mu.Unlock()
			return
		}
		raw = raw[:len(raw)-1]
		if n := len(raw); n > 0 && raw[n-1] == '\r' {
			raw = raw[:n-1]
		}
		f, err := decodeFrame(raw)
		c.mu.Lock()
		if err != nil {
			c.bad = append(c.bad, fmt.Sprintf("unreadable frame %q: %v", raw, err))
		} else {
			for _, b := range raw {
				if b >= 0x80 {
					c.bad = append(c.bad, fmt.Sprintf("frame has non-ASCII bytes: %q", raw))
					break
				}
			}
			if c.version != "" {
				if err := ValidateFrame(c.version, raw, c.methods[string(f.ID)]); err != nil {
					c.bad = append(c.bad, fmt.Sprintf("frame %s fails the schema: %v", raw, err))
				}
			}
		}
		c.frames = append(c.frames, f)
		c.notify()
		c.mu.Unlock()
	}
}

// ExpectStop tells the client that the server is being stopped abruptly
// (its context cancelled, the test ending): a frame then cut short at the
// end of output is the write the stop abandoned, not a malformed frame.
func (c *Client) ExpectStop() { c.stopping.Store(true) }

func (c *Client) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// SetVersion sets the schema revision frames are validated against; ""
// turns validation off.
func (c *Client) SetVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// Send writes one raw frame and a newline. It records the method of a
// request so its response is validated against the right result schema.
func (c *Client) Send(frame []byte) error {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(frame, &head) == nil && head.ID != nil && head.Method != "" {
		c.mu.Lock()
		c.methods[string(head.ID)] = head.Method
		c.mu.Unlock()
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(append([]byte(nil), frame...), '\n'))
	return err
}

// newID returns a fresh integer request id.
func (c *Client) newID() int64 { return c.nextID.Add(1) }

// Call sends a 2026-07-28 request (with _meta) and waits for its response.
func (c *Client) Call(t testing.TB, method string, params map[string]any) *Frame {
	t.Helper()
	id := c.newID()
	if err := c.Send(Request(id, method, params)); err != nil {
		t.Fatalf("testkit: sending %s: %v", method, err)
	}
	return c.AwaitResponse(t, strconv.FormatInt(id, 10))
}

// AwaitResponse waits for the response whose id has the JSON text id.
func (c *Client) AwaitResponse(t testing.TB, id string) *Frame {
	t.Helper()
	f, err := c.Await(context.Background(), func(f *Frame) bool { return f.Method == "" && string(f.ID) == id })
	if err != nil {
		t.Fatalf("testkit: awaiting response %s: %v", id, err)
	}
	return f
}

// Await waits (at most DefaultTimeout) for the first recorded frame that
// matches.
func (c *Client) Await(ctx context.Context, match func(*Frame) bool) (*Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	for {
		c.mu.Lock()
		for _, f := range c.frames {
			if match(f) {
				c.mu.Unlock()
				return f, nil
			}
		}
		ch, readEnded := c.changed, c.isReadDone()
		c.mu.Unlock()
		if readEnded {
			return nil, fmt.Errorf("output ended without a matching frame")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Client) isReadDone() bool {
	select {
	case <-c.readDone:
		return true
	default:
		return false
	}
}

// WaitClosed waits until the server's output ends and returns every frame
// it sent.
func (c *Client) WaitClosed(t testing.TB) []*Frame {
	t.Helper()
	select {
	case <-c.readDone:
	case <-time.After(DefaultTimeout):
		t.Fatal("testkit: server output did not end")
	}
	return c.Frames()
}

// Frames returns every frame read so far, in order.
func (c *Client) Frames() []*Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Frame(nil), c.frames...)
}

// Problems returns the schema failures and unreadable frames seen so far.
func (c *Client) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bad...)
}

// CheckFrames fails t for every frame that failed validation.
func (c *Client) CheckFrames(t testing.TB) {
	t.Helper()
	for _, p := range c.Problems() {
		t.Error(p)
	}
}
