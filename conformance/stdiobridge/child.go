package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// maxChildLine bounds one line the stdio server writes.
const maxChildLine = 16 << 20

// childStopTimeout is how long a child may take to exit once its input
// is closed before it is killed.
const childStopTimeout = 5 * time.Second

// head is what the bridge reads of a JSON-RPC message to route it.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params json.RawMessage `json:"params"`
}

func (h *head) isRequest() bool      { return h.Method != "" && len(h.ID) > 0 }
func (h *head) isNotification() bool { return h.Method != "" && len(h.ID) == 0 }
func (h *head) isResponse() bool     { return h.Method == "" && (h.Result != nil || h.Error != nil) }

// progressToken returns the compacted progress token of a request's
// params._meta or of a progress notification's params, or "".
func progressToken(params json.RawMessage, inMeta bool) string {
	if len(params) == 0 {
		return ""
	}
	if inMeta {
		meta := memberValue(params, "_meta")
		if meta == nil {
			return ""
		}
		params = meta
	}
	if tok := memberValue(params, "progressToken"); tok != nil && string(tok) != "null" {
		return compactJSON(tok)
	}
	return ""
}

// item is one message for an exchange: a notification or server-to-client
// request to relay, or the final response.
type item struct {
	frame []byte
	final bool
}

// exchange is one client request in flight through a child.
type exchange struct {
	clientID json.RawMessage // as the client wrote it; nil when forwarded verbatim
	childID  int64           // the id the child sees; 0 when forwarded verbatim
	token    string          // compacted progress token, or ""
	items    chan item
	gone     chan struct{} // closed when the client stops waiting
	goneOnce sync.Once
}

func (x *exchange) abandon() { x.goneOnce.Do(func() { close(x.gone) }) }

// deliver hands an item to the exchange unless its client has gone.
func (x *exchange) deliver(it item) {
	select {
	case x.items <- it:
	case <-x.gone:
	}
}

// child is one stdio server process. Requests from several clients may be
// in flight at once: each gets an id of the bridge's own, so that ids
// chosen by different clients cannot collide, and the response gets the
// client's id back.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	logger *slog.Logger
	// unrouted receives notifications and server-to-client requests that
	// belong to no exchange in flight (a session's GET stream); may be nil.
	unrouted func(frame []byte)

	wmu sync.Mutex // serialises writes to stdin

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*exchange
	order   []*exchange // in flight, oldest first
	closed  bool

	done   chan struct{} // closed when the child's output has ended
	exited chan struct{} // closed when the process has been waited for
}

// startChild starts argv as a stdio server.
func startChild(argv []string, logger *slog.Logger) (*child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	c := &child{
		cmd: cmd, stdin: stdin, logger: logger,
		pending: map[int64]*exchange{},
		done:    make(chan struct{}), exited: make(chan struct{}),
	}
	go c.readLoop(stdout)
	go func() {
		<-c.done
		err := cmd.Wait()
		if err != nil {
			logger.Debug("stdio server exited", "pid", cmd.Process.Pid, "error", err)
		}
		close(c.exited)
	}()
	return c, nil
}

// alive reports whether the child can still take requests.
func (c *child) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed
}

// busy reports how many requests are in flight.
func (c *child) busy() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order)
}

// errChildGone is the error of a request whose child has exited.
var errChildGone = errors.New("the stdio server has exited")

// write sends one message (a newline is added).
func (c *child) write(frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.alive() {
		return errChildGone
	}
	buf := make([]byte, 0, len(frame)+1)
	buf = append(append(buf, frame...), '\n')
	_, err := c.stdin.Write(buf)
	return err
}

// request forwards a client request and returns the exchange its response
// and request-scoped messages arrive on. A request whose id cannot be read
// is forwarded verbatim; the child's id-less error answers it.
func (c *child) request(body []byte, h *head) (*exchange, error) {
	x := &exchange{items: make(chan item, 64), gone: make(chan struct{})}
	out := body
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errChildGone
	}
	if len(h.ID) > 0 {
		c.nextID++
		if rewritten, ok := replaceMember(body, "id", []byte(strconv.FormatInt(c.nextID, 10))); ok {
			x.clientID, x.childID, out = h.ID, c.nextID, rewritten
			c.pending[x.childID] = x
		}
	}
	x.token = progressToken(h.Params, true)
	c.order = append(c.order, x)
	c.mu.Unlock()
	if err := c.write(out); err != nil {
		c.finish(x)
		return nil, err
	}
	return x, nil
}

// cancel tells the child that the client stopped waiting for x, and
// forgets x: nothing more is relayed for it.
func (c *child) cancel(x *exchange, reason string) {
	x.abandon()
	if c.finish(x) && x.childID != 0 {
		params, _ := json.Marshal(map[string]any{"requestId": x.childID, "reason": reason})
		_ = c.write(append(append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":`), params...), '}'))
	}
}

// finish removes x from the requests in flight; false if it was not there.
func (c *child) finish(x *exchange) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	found := false
	for i, y := range c.order {
		if y == x {
			c.order = append(c.order[:i], c.order[i+1:]...)
			found = true
			break
		}
	}
	if x.childID != 0 {
		delete(c.pending, x.childID)
	}
	return found
}

// childIDFor returns the bridge's id for a client's request id in flight
// (for a client's notifications/cancelled); false when none matches.
func (c *child) childIDFor(clientID json.RawMessage) (int64, bool) {
	want := compactJSON(clientID)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.order {
		if x.clientID != nil && compactJSON(x.clientID) == want {
			return x.childID, true
		}
	}
	return 0, false
}

func (c *child) readLoop(stdout io.Reader) {
	defer c.shut()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxChildLine)
	for sc.Scan() {
		frame := append([]byte(nil), sc.Bytes()...)
		var h head
		if err := json.Unmarshal(frame, &h); err != nil {
			c.logger.Warn("stdio server wrote a line that is not JSON", "error", err, "line", truncate(frame))
			continue
		}
		switch {
		case h.isResponse():
			c.respond(frame, &h)
		case h.Method == "notifications/progress":
			c.route(frame, progressToken(h.Params, false))
		case h.Method != "":
			c.route(frame, "")
		default:
			c.logger.Warn("stdio server wrote a message that is neither request, notification nor response", "line", truncate(frame))
		}
	}
	if err := sc.Err(); err != nil {
		c.logger.Warn("reading the stdio server", "error", err)
	}
}

// respond delivers a response to its exchange, with the client's id.
func (c *child) respond(frame []byte, h *head) {
	var x *exchange
	c.mu.Lock()
	if id, err := strconv.ParseInt(string(h.ID), 10, 64); err == nil {
		x = c.pending[id]
	} else {
		// An id-less error answers the oldest request sent verbatim.
		for _, y := range c.order {
			if y.childID == 0 {
				x = y
				break
			}
		}
	}
	c.mu.Unlock()
	if x == nil {
		c.logger.Warn("response for no request in flight", "line", truncate(frame))
		return
	}
	c.finish(x)
	if x.clientID != nil {
		if restored, ok := replaceMember(frame, "id", x.clientID); ok {
			frame = restored
		}
	}
	x.deliver(item{frame: frame, final: true})
}

// route relays a notification or server-to-client request: to the request
// whose progress token it names, else to the oldest request in flight,
// else to the unrouted sink.
func (c *child) route(frame []byte, token string) {
	var x *exchange
	c.mu.Lock()
	if token != "" {
		for _, y := range c.order {
			if y.token == token {
				x = y
				break
			}
		}
	} else if len(c.order) > 0 {
		x = c.order[0]
	}
	c.mu.Unlock()
	switch {
	case x != nil:
		x.deliver(item{frame: frame})
	case token != "":
		c.logger.Debug("progress for no request in flight", "token", token)
	case c.unrouted != nil:
		c.unrouted(frame)
	default:
		c.logger.Warn("message for no request in flight dropped", "line", truncate(frame))
	}
}

// shut marks the child closed once its output has ended and fails every
// request still in flight.
func (c *child) shut() {
	c.mu.Lock()
	c.closed = true
	order := c.order
	c.order, c.pending = nil, map[int64]*exchange{}
	c.mu.Unlock()
	close(c.done)
	for _, x := range order {
		x.deliver(item{frame: internalError(x.clientID, "the stdio server exited before answering"), final: true})
	}
}

// close ends the child's input, so it finishes its requests and exits,
// and kills it if it has not exited within childStopTimeout or ctx.
func (c *child) close(ctx context.Context) {
	c.wmu.Lock()
	_ = c.stdin.Close()
	c.wmu.Unlock()
	t := time.NewTimer(childStopTimeout)
	defer t.Stop()
	select {
	case <-c.exited:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// internalError is a -32603 response for id (no id member when nil).
func internalError(id json.RawMessage, message string) []byte {
	msg, _ := json.Marshal(message)
	out := []byte(`{"jsonrpc":"2.0",`)
	if id != nil {
		out = append(append(append(out, `"id":`...), id...), ',')
	}
	return append(append(append(out, `"error":{"code":-32603,"message":`...), msg...), "}}"...)
}

func truncate(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
