package client

// The line-delimited transport over any reader and writer (stdio, pipes).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"

	"github.com/snodo-go/snodo/jsonrpc"
)

// Stream transport defaults.
const (
	// defaultMaxLineBytes bounds one message from the server on a stream
	// transport, newline included.
	defaultMaxLineBytes = 16 << 20
	// defaultWriteTimeout bounds one write to the server where the stream
	// supports deadlines (pipes to a process do).
	defaultWriteTimeout = 5 * time.Second
	// defaultGracePeriod is how long Close waits at each step of stopping
	// a server: after closing its input, after SIGTERM.
	defaultGracePeriod = 2 * time.Second
	// maxQueued bounds the notifications waiting in one exchange; past it
	// the newest are dropped (progress is advisory; a listen stream is
	// drained continuously into its own bounded buffer).
	maxQueued = 1024
)

// StreamTransport speaks newline-delimited JSON over a reader and a
// writer, such as pipes to a server in the same process. It can be
// connected once.
type StreamTransport struct {
	// Reader is the server's output.
	Reader io.Reader
	// Writer is the server's input; closing the connection closes it.
	Writer io.WriteCloser
	// MaxLineBytes bounds one message from the server (default 16 MiB).
	// A longer one ends the connection with ErrFrameTooLarge.
	MaxLineBytes int
	// GracePeriod bounds how long Close waits for the server's output to
	// end after closing its input (default 2 s); then the reader is
	// closed if it is an io.Closer.
	GracePeriod time.Duration

	mu   sync.Mutex
	used bool
}

// Connect implements Transport.
func (t *StreamTransport) Connect(_ context.Context, peer clientconn.Peer) (clientconn.Conn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used {
		return nil, fmt.Errorf("client: a stream transport connects once: %w", ErrClosed)
	}
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("client: a stream transport needs a Reader and a Writer")
	}
	t.used = true
	grace := t.GracePeriod
	if grace <= 0 {
		grace = defaultGracePeriod
	}
	lc := newLineConn(t.Reader, t.Writer, t.MaxLineBytes, 0, peer)
	lc.key = fmt.Sprintf("stream:%p", t)
	lc.stop = func() error {
		err := t.Writer.Close()
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-lc.readDone:
		case <-timer.C:
			if c, ok := t.Reader.(io.Closer); ok {
				c.Close()
			}
			<-lc.readDone
		}
		return err
	}
	go lc.readLoop()
	return lc, nil
}

// deadliner is a writer that supports write deadlines (an *os.File pipe).
type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// lineConn multiplexes requests over one newline-delimited stream:
// responses are routed by id, progress by token, listen notifications by
// subscription id, and the rest goes to the Peer.
type lineConn struct {
	r            *bufio.Reader
	w            io.Writer
	maxLine      int
	writeTimeout time.Duration
	peer         clientconn.Peer
	key          string       // CacheKey
	stop         func() error // closes the input and waits for the reader
	readDone     chan struct{}

	wmu sync.Mutex

	mu        sync.Mutex
	byID      map[jsonrpc.ID]*lineExchange
	byToken   map[jsonrpc.ID]*lineExchange
	err       error // set once the connection has ended
	closeOnce sync.Once
	closeErr  error
}

func newLineConn(r io.Reader, w io.Writer, maxLine int, writeTimeout time.Duration, peer clientconn.Peer) *lineConn {
	if maxLine <= 0 {
		maxLine = defaultMaxLineBytes
	}
	return &lineConn{
		r: bufio.NewReaderSize(r, 64<<10), w: w, maxLine: maxLine, writeTimeout: writeTimeout, peer: peer,
		readDone: make(chan struct{}), byID: map[jsonrpc.ID]*lineExchange{}, byToken: map[jsonrpc.ID]*lineExchange{},
	}
}

// readLine returns the next line without its newline, holding at most
// maxLine bytes of it.
func (lc *lineConn) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := lc.r.ReadSlice('\n')
		if len(line)+len(chunk) > lc.maxLine {
			return nil, ErrFrameTooLarge
		}
		switch {
		case err == nil:
			line = append(line, chunk[:len(chunk)-1]...)
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
		default:
			if len(line)+len(chunk) > 0 && errors.Is(err, io.EOF) {
				return append(line, chunk...), nil
			}
			return nil, err
		}
	}
}

func (lc *lineConn) readLoop() {
	defer close(lc.readDone)
	for {
		line, err := lc.readLine()
		if err != nil {
			if errors.Is(err, ErrFrameTooLarge) {
				lc.fail(ErrFrameTooLarge)
			} else {
				lc.fail(ErrClosed)
			}
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if lc.peer.Trace != nil {
			lc.peer.Trace(false, line)
		}
		msg, err := jsonrpc.Decode(line)
		if err != nil {
			continue // nothing to route; a request waiting for it times out
		}
		lc.route(msg)
	}
}

// route delivers one message to its exchange or to the Peer.
func (lc *lineConn) route(msg *jsonrpc.Message) {
	var ex *lineExchange
	lc.mu.Lock()
	switch msg.Kind {
	case jsonrpc.KindResponse:
		ex = lc.byID[msg.ID]
		if ex != nil {
			lc.forget(ex)
		}
	case jsonrpc.KindNotification:
		switch {
		case msg.Method == "notifications/progress":
			if raw, ok := jsonwire.Member(msg.Params, "progressToken"); ok {
				if tok, err := rpcwire.ParseID(raw); err == nil {
					ex = lc.byToken[tok]
				}
			}
		case msg.Method == "notifications/cancelled":
			// The server ends a listen stream this way.
			if raw, ok := jsonwire.Member(msg.Params, "requestId"); ok {
				if id, err := rpcwire.ParseID(raw); err == nil && lc.byID[id] != nil && lc.byID[id].stream {
					ex = lc.byID[id]
					lc.forget(ex)
				}
			}
		default:
			if meta, ok := jsonwire.Member(msg.Params, "_meta"); ok {
				if raw, ok := jsonwire.Member(meta, "io.modelcontextprotocol/subscriptionId"); ok {
					if id, err := rpcwire.ParseID(raw); err == nil {
						ex = lc.byID[id]
					}
				}
			}
		}
	}
	lc.mu.Unlock()
	if ex != nil {
		ex.deliver(msg)
		return
	}
	if msg.Kind != jsonrpc.KindResponse && lc.peer.Inbound != nil {
		lc.peer.Inbound(msg)
	}
}

// forget unregisters an exchange; lc.mu is held.
func (lc *lineConn) forget(ex *lineExchange) {
	if lc.byID[ex.id] == ex {
		delete(lc.byID, ex.id)
	}
	if ex.token.IsValid() && lc.byToken[ex.token] == ex {
		delete(lc.byToken, ex.token)
	}
}

// fail ends the connection: every open exchange ends with err.
func (lc *lineConn) fail(err error) {
	lc.mu.Lock()
	if lc.err == nil {
		lc.err = err
	}
	open := make([]*lineExchange, 0, len(lc.byID))
	for _, ex := range lc.byID {
		open = append(open, ex)
	}
	clear(lc.byID)
	clear(lc.byToken)
	lc.mu.Unlock()
	for _, ex := range open {
		ex.end(err)
	}
}

func (lc *lineConn) write(frame []byte) error {
	lc.wmu.Lock()
	defer lc.wmu.Unlock()
	lc.mu.Lock()
	err := lc.err
	lc.mu.Unlock()
	if err != nil {
		return err
	}
	if d, ok := lc.w.(deadliner); ok && lc.writeTimeout > 0 {
		d.SetWriteDeadline(time.Now().Add(lc.writeTimeout))
	}
	if lc.peer.Trace != nil {
		lc.peer.Trace(true, frame)
	}
	buf := make([]byte, 0, len(frame)+1)
	buf = append(append(buf, frame...), '\n')
	if _, err := lc.w.Write(buf); err != nil {
		lc.fail(ErrClosed)
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return nil
}

// Call implements Conn.
func (lc *lineConn) Call(_ context.Context, out *clientconn.Outbound) (clientconn.Exchange, error) {
	ex := &lineExchange{lc: lc, id: out.ID, token: out.ProgressToken, stream: out.Stream, wake: make(chan struct{}, 1)}
	lc.mu.Lock()
	if lc.err != nil {
		err := lc.err
		lc.mu.Unlock()
		return nil, err
	}
	lc.byID[out.ID] = ex
	if out.ProgressToken.IsValid() {
		lc.byToken[out.ProgressToken] = ex
	}
	lc.mu.Unlock()
	if err := lc.write(out.Frame); err != nil {
		lc.mu.Lock()
		lc.forget(ex)
		lc.mu.Unlock()
		return nil, err
	}
	return ex, nil
}

// Send implements Conn.
func (lc *lineConn) Send(_ context.Context, out *clientconn.Outbound) error {
	return lc.write(out.Frame)
}

// Close implements Conn.
func (lc *lineConn) CacheKey() string { return lc.key }

func (lc *lineConn) Close() error {
	lc.closeOnce.Do(func() {
		if lc.stop != nil {
			lc.closeErr = lc.stop()
		}
		lc.fail(ErrClosed)
		<-lc.readDone
	})
	return lc.closeErr
}

// lineExchange is one request's share of a lineConn.
type lineExchange struct {
	lc     *lineConn
	id     jsonrpc.ID
	token  jsonrpc.ID
	stream bool
	wake   chan struct{}

	mu       sync.Mutex
	queue    []*jsonrpc.Message
	answered bool
	err      error // the connection ended
}

func (ex *lineExchange) deliver(msg *jsonrpc.Message) {
	ex.mu.Lock()
	if msg.Kind == jsonrpc.KindResponse || msg.Method == "notifications/cancelled" {
		ex.answered = true
	} else if len(ex.queue) >= maxQueued {
		ex.mu.Unlock()
		return
	}
	ex.queue = append(ex.queue, msg)
	ex.mu.Unlock()
	select {
	case ex.wake <- struct{}{}:
	default:
	}
}

func (ex *lineExchange) end(err error) {
	ex.mu.Lock()
	if ex.err == nil {
		ex.err = err
	}
	ex.mu.Unlock()
	select {
	case ex.wake <- struct{}{}:
	default:
	}
}

// Next implements Exchange.
func (ex *lineExchange) Next(ctx context.Context) (*jsonrpc.Message, error) {
	for {
		ex.mu.Lock()
		if len(ex.queue) > 0 {
			msg := ex.queue[0]
			ex.queue[0] = nil
			ex.queue = ex.queue[1:]
			ex.mu.Unlock()
			return msg, nil
		}
		if ex.answered {
			ex.mu.Unlock()
			return nil, io.EOF
		}
		if ex.err != nil {
			err := ex.err
			ex.mu.Unlock()
			return nil, err
		}
		ex.mu.Unlock()
		select {
		case <-ex.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close implements Exchange: on a stream the server is told of a
// cancellation by the notification itself.
func (ex *lineExchange) Close(cancel []byte) {
	lc := ex.lc
	lc.mu.Lock()
	lc.forget(ex)
	lc.mu.Unlock()
	ex.mu.Lock()
	answered := ex.answered
	ex.mu.Unlock()
	if cancel != nil && !answered {
		_ = lc.write(cancel) // best effort: the connection may be gone
	}
}
