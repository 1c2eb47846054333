package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// child is a server subprocess and a minimal client for it: requests go
// to its standard input, every line of its standard output is recorded.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan frame
	log   bytes.Buffer // its standard error
	logMu sync.Mutex

	mu     sync.Mutex
	frames []frame
}

// frame is one line the server wrote.
type frame struct {
	raw string
	ID  json.RawMessage `json:"id"`
	bad string          // why the line is not a valid ASCII JSON-RPC message
}

func (f frame) id() string { return string(f.ID) }

func startChild(path string, args ...string) (*child, error) {
	c := &child{cmd: exec.Command(path, args...), lines: make(chan frame, 1024)}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		c.logMu.Lock()
		defer c.logMu.Unlock()
		return c.log.Write(p)
	})
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	go c.read(out)
	return c, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (c *child) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		f := frame{raw: sc.Text()}
		var head struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil || head.JSONRPC != "2.0" {
			f.bad = fmt.Sprintf("not a JSON-RPC message: %q", f.raw)
		}
		for _, b := range sc.Bytes() {
			if b >= 0x80 {
				f.bad = fmt.Sprintf("non-ASCII byte in %q", f.raw)
				break
			}
		}
		f.ID = head.ID
		c.mu.Lock()
		c.frames = append(c.frames, f)
		c.mu.Unlock()
		c.lines <- f
	}
	close(c.lines)
}

func (c *child) send(line string) {
	_, _ = io.WriteString(c.in, line+"\n") // a failure shows up as a missing response
}

// call sends a 2026-07-28 tools/call request.
func (c *child) call(id int, tool string, args map[string]any) {
	if args == nil {
		args = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{
			"name": tool, "arguments": args,
			"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			},
		},
	})
	c.send(string(b))
}

// next returns the next line the server writes.
func (c *child) next(timeout time.Duration) (frame, error) {
	select {
	case f, ok := <-c.lines:
		if !ok {
			return frame{}, errors.New("the server closed its output")
		}
		return f, nil
	case <-time.After(timeout):
		return frame{}, errors.New("timed out")
	}
}

// awaitID returns the frame with the given id, reading on as needed.
func (c *child) awaitID(id string, timeout time.Duration) (frame, error) {
	deadline := time.Now().Add(timeout)
	c.mu.Lock()
	for _, f := range c.frames {
		if f.id() == id {
			c.mu.Unlock()
			return f, nil
		}
	}
	c.mu.Unlock()
	for {
		f, err := c.next(time.Until(deadline))
		if err != nil {
			return frame{}, err
		}
		if f.id() == id {
			return f, nil
		}
	}
}

func (c *child) closeInput() { _ = c.in.Close() }

// wait waits for the server to exit and returns its exit status.
func (c *child) wait(timeout time.Duration) (int, error) {
	done := make(chan error, 1)
	go func() {
		for range c.lines { // drain output so the server never blocks on it
		}
		done <- c.cmd.Wait()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	case <-time.After(timeout):
		return -1, errors.New("the server did not exit")
	}
}

func (c *child) all() []frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]frame(nil), c.frames...)
}

func (c *child) stderr() string {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	return c.log.String()
}

// kill ends the server if it is still running (after a failure).
func (c *child) kill() { _ = c.cmd.Process.Kill() }
