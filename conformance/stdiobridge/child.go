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

	"github.com/snodo-go/snodo/mcp"
)

// maxChildLine bounds one line the stdio server writes.
const maxChildLine = 16 << 20

// childStopTimeout is how long a child may take to exit once its input
// is closed before it is killed.
const childStopTimeout = 5 * time.Second

// maxQueued bounds the messages waiting for one HTTP client. The reader
// that routes the child's output never waits for a client (one slow
// client would hold up every other request), so a client that falls this
// far behind has its request cancelled instead.
const maxQueued = 1024

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

// item is one message for an exchange: a notification or server-to-client
// request to relay, or the final response. A final item without a frame
// ends the exchange with no response (the server ended a listen stream
// with notifications/cancelled, which HTTP says by closing the stream).
type item struct {
	frame []byte
	final bool
}

// exchange is one client request in flight through a child.
type exchange struct {
	clientID json.RawMessage // as the client wrote it; nil when forwarded verbatim
	childID  int64           // the id the child sees; 0 when forwarded verbatim
	// clientToken is the client's progress token; the child sees childID
	// in its place, so tokens chosen by different clients cannot collide
	// either. nil when the request carries none.
	clientToken json.RawMessage
	// logLevel is the rank of the request's _meta logLevel (see
	// levelRank), or -1: without one the server sends it no log message.
	logLevel int
	listen   bool // a subscriptions/listen stream

	items    chan item // at most maxQueued notifications, then the final item
	gone     chan struct{}
	goneOnce sync.Once
}

func (x *exchange) abandon() { x.goneOnce.Do(func() { close(x.gone) }) }

// deliver hands an item to the exchange without waiting. It reports false
// when a notification finds maxQueued items already waiting; a final item
// always fits.
func (x *exchange) deliver(it item) bool {
	select {
	case <-x.gone:
		return true // nobody waits any more: dropped
	default:
	}
	if !it.final && len(x.items) >= maxQueued {
		return false
	}
	select {
	case x.items <- it:
		return true
	default:
		return false
	}
}

// child is one stdio server process and the multiplexer in front of it.
// Requests from several HTTP clients are in flight at once: each gets an
// id of the bridge's own (and its progress token the same number), so
// that ids and tokens chosen by different clients cannot collide, and
// every message for it gets the client's values back.
//
// Three goroutines belong to a child: the writer, the only one that
// writes its standard input, which it takes from a queue so that nobody
// waits on a full pipe; the reader, which routes each line of its output
// to the exchange it belongs to; and the waiter, which reaps the process
// once both have returned. close stops all three.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	logger *slog.Logger
	// stateless routes by the rules of 2026-07-28, under which a server
	// sends only responses, notifications scoped to a request (progress,
	// log messages) and listen-stream notifications (see route); otherwise
	// (initialize-era sessions) a notification that names no request goes
	// to the oldest request in flight, or to unrouted.
	stateless bool
	// unrouted receives notifications and server-to-client requests that
	// belong to no exchange in flight (a session's GET stream); may be nil.
	unrouted func(frame []byte)

	wmu      sync.Mutex
	wqueue   [][]byte
	wstopped bool
	wwake    chan struct{} // one token: the queue has work or the writer must stop
	wdone    chan struct{} // closed when the writer has returned

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*exchange
	order   []*exchange // in flight, oldest first
	closed  bool

	done   chan struct{} // closed when the child's output has ended
	exited chan struct{} // closed when the process has been waited for
}

// startChild starts argv as a stdio server.
func startChild(argv []string, stateless bool, logger *slog.Logger) (*child, error) {
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
		cmd: cmd, stdin: stdin, logger: logger, stateless: stateless,
		pending: map[int64]*exchange{},
		wwake:   make(chan struct{}, 1), wdone: make(chan struct{}),
		done: make(chan struct{}), exited: make(chan struct{}),
	}
	go c.writeLoop()
	go c.readLoop(stdout)
	go func() {
		<-c.done
		<-c.wdone
		if err := cmd.Wait(); err != nil {
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

// errChildGone is the error of a request whose child has exited.
var errChildGone = errors.New("the stdio server has exited")

// write queues one message for the child's input (the writer adds the
// newline). It never waits for the child.
func (c *child) write(frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wstopped {
		return errChildGone
	}
	c.wqueue = append(c.wqueue, frame)
	c.wake()
	return nil
}

func (c *child) wake() {
	select {
	case c.wwake <- struct{}{}:
	default:
	}
}

// stopWriter asks the writer to write what is queued, close the child's
// input, and return.
func (c *child) stopWriter() {
	c.wmu.Lock()
	c.wstopped = true
	c.wake()
	c.wmu.Unlock()
}

// writeLoop is the writer: the only goroutine that writes the child's
// input. A failed write ends it (the child is gone or going).
func (c *child) writeLoop() {
	defer close(c.wdone)
	defer func() { _ = c.stdin.Close() }()
	for range c.wwake {
		c.wmu.Lock()
		queue, stop := c.wqueue, c.wstopped
		c.wqueue = nil
		c.wmu.Unlock()
		for _, frame := range queue {
			line := make([]byte, 0, len(frame)+1)
			if _, err := c.stdin.Write(append(append(line, frame...), '\n')); err != nil {
				c.logger.Debug("writing to the stdio server", "error", err)
				c.wmu.Lock()
				c.wstopped, c.wqueue = true, nil
				c.wmu.Unlock()
				return
			}
		}
		if stop {
			return
		}
	}
}

// request forwards a client request and returns the exchange its response
// and request-scoped messages arrive on. A request whose id cannot be read
// is forwarded verbatim; the child's id-less error answers it.
func (c *child) request(body []byte, h *head) (*exchange, error) {
	x := &exchange{items: make(chan item, maxQueued+1), gone: make(chan struct{}), logLevel: -1, listen: h.Method == "subscriptions/listen"}
	if level, ok := unquote(pathValue(h.Params, "_meta", mcp.MetaLogLevel)); ok {
		if rank, known := levelRank[level]; known {
			x.logLevel = rank
		}
	}
	out := body
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errChildGone
	}
	if len(h.ID) > 0 {
		c.nextID++
		own := []byte(strconv.FormatInt(c.nextID, 10))
		if rewritten, ok := replaceMember(body, "id", own); ok {
			x.clientID, x.childID, out = h.ID, c.nextID, rewritten
			c.pending[x.childID] = x
			if tok := pathValue(h.Params, "_meta", mcp.MetaProgressToken); tok != nil && string(tok) != "null" {
				if retokened, ok := replacePath(out, own, "params", "_meta", mcp.MetaProgressToken); ok {
					x.clientToken, out = tok, retokened
				}
			}
		}
	}
	c.order = append(c.order, x)
	c.mu.Unlock()
	if err := c.write(out); err != nil {
		c.finish(x)
		return nil, err
	}
	return x, nil
}

// cancel tells the child that the client stopped waiting for x, and
// forgets x: nothing more is relayed for it, and a later message the
// child writes for it (the race with its completion) is dropped.
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
	if x.childID != 0 && c.pending[x.childID] == x {
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

// inFlight returns the exchange the bridge's id (a JSON number) names.
func (c *child) inFlight(raw []byte) *exchange {
	id, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending[id]
}

// readLoop is the reader: it routes each line the child writes.
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
		case h.Method != "":
			c.route(frame, &h)
		default:
			c.logger.Warn("stdio server wrote a message that is neither request, notification nor response", "line", truncate(frame))
		}
	}
	if err := sc.Err(); err != nil {
		c.logger.Warn("reading the stdio server", "error", err)
	}
}

// respond delivers a response to its exchange, with the client's id (and,
// ending a listen stream, the client's id as its subscription id).
func (c *child) respond(frame []byte, h *head) {
	x := c.inFlight(h.ID)
	if x == nil {
		if _, err := strconv.ParseInt(string(h.ID), 10, 64); err != nil {
			// An id-less error answers the oldest request sent verbatim
			// (one whose id could not be read, a body that is not JSON).
			c.mu.Lock()
			for _, y := range c.order {
				if y.childID == 0 {
					x = y
					break
				}
			}
			c.mu.Unlock()
		}
	}
	if x == nil || !c.finish(x) {
		c.logger.Debug("response for no request in flight dropped", "line", truncate(frame))
		return
	}
	if x.clientID != nil {
		if restored, ok := replaceMember(frame, "id", x.clientID); ok {
			frame = restored
		}
		if x.listen {
			if restored, ok := replacePath(frame, x.clientID, "result", "_meta", mcp.MetaSubscriptionID); ok {
				frame = restored
			}
		}
	}
	x.deliver(item{frame: frame, final: true})
}

// route relays a notification or server-to-client request to the
// exchange it belongs to:
//   - notifications/progress to the request whose token it names;
//   - a message tagged with a subscription id to that listen stream;
//   - stateless, notifications/cancelled naming a request in flight ends
//     it with no response (the server ending a listen stream), and a log
//     message goes to a request that asked for logs at its level (see
//     routeLog); anything else names no request and is dropped;
//   - with sessions, anything else goes to the oldest request in flight,
//     else to the unrouted sink.
func (c *child) route(frame []byte, h *head) {
	if h.Method == "notifications/progress" {
		x := c.inFlight(memberValue(h.Params, mcp.MetaProgressToken))
		if x == nil || x.clientToken == nil {
			c.logger.Debug("progress for no request in flight dropped", "line", truncate(frame))
			return
		}
		if restored, ok := replacePath(frame, x.clientToken, "params", mcp.MetaProgressToken); ok {
			c.hand(x, restored)
		}
		return
	}
	if sub := pathValue(h.Params, "_meta", mcp.MetaSubscriptionID); sub != nil {
		x := c.inFlight(sub)
		if x == nil || !x.listen {
			c.logger.Debug("message for no listen stream in flight dropped", "line", truncate(frame))
			return
		}
		if restored, ok := replacePath(frame, x.clientID, "params", "_meta", mcp.MetaSubscriptionID); ok {
			c.hand(x, restored)
		}
		return
	}
	if c.stateless {
		switch h.Method {
		case "notifications/cancelled":
			if x := c.inFlight(memberValue(h.Params, "requestId")); x != nil && c.finish(x) {
				x.deliver(item{final: true})
			}
		case "notifications/message":
			c.routeLog(frame, h)
		default:
			c.logger.Warn("message that names no request dropped", "line", truncate(frame))
		}
		return
	}
	var x *exchange
	c.mu.Lock()
	if len(c.order) > 0 {
		x = c.order[0]
	}
	c.mu.Unlock()
	switch {
	case x != nil:
		c.hand(x, frame)
	case c.unrouted != nil:
		c.unrouted(frame)
	default:
		c.logger.Warn("message for no request in flight dropped", "line", truncate(frame))
	}
}

// routeLog relays a stateless log message. The stdio transport writes it
// with nothing naming its request, and the server sends log messages only
// to a request whose _meta logLevel admits their level; so it goes to the
// oldest request in flight that asked for logs at or below the message's
// level, and is dropped when there is none: a request without logLevel
// never sees one. With several such requests in flight at once the oldest
// may get a message of another; that is the limit of what stdio says.
func (c *child) routeLog(frame []byte, h *head) {
	level, _ := unquote(memberValue(h.Params, "level"))
	rank, known := levelRank[level]
	var x *exchange
	c.mu.Lock()
	for _, y := range c.order {
		if y.logLevel >= 0 && (!known || rank >= y.logLevel) {
			x = y
			break
		}
	}
	c.mu.Unlock()
	if x == nil {
		c.logger.Debug("log message for no request that asked for logs dropped", "line", truncate(frame))
		return
	}
	c.hand(x, frame)
}

// hand delivers a notification; a client too far behind has its request
// cancelled.
func (c *child) hand(x *exchange, frame []byte) {
	if !x.deliver(item{frame: frame}) {
		c.logger.Warn("an HTTP client fell behind; its request is cancelled", "queued", maxQueued)
		c.cancel(x, "the client fell behind")
	}
}

// shut marks the child closed once its output has ended, fails every
// request still in flight, and stops the writer.
func (c *child) shut() {
	c.mu.Lock()
	c.closed = true
	order := c.order
	c.order, c.pending = nil, map[int64]*exchange{}
	c.mu.Unlock()
	c.stopWriter()
	close(c.done)
	for _, x := range order {
		x.deliver(item{frame: internalError(x.clientID, "the stdio server exited before answering"), final: true})
	}
}

// close ends the child's input, so it finishes its requests and exits,
// and kills it if it has not exited within childStopTimeout or ctx.
func (c *child) close(ctx context.Context) {
	c.stopWriter()
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

// levelRank orders the log levels, least severe first.
var levelRank = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

// unquote returns the string a raw JSON string holds.
func unquote(raw []byte) (string, bool) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
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
