package tree

// What a transport gives and gets for a byte-stream connection.

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/snodo-go/snodo/dispatch"
)

// FrameReader yields a connection's inbound frames one at a time. It is
// used by one goroutine only.
type FrameReader interface {
	// ReadFrame returns the next frame without its delimiter. For a frame
	// over the transport's limit it discards the frame and returns an
	// error wrapping ErrFrameTooLarge; at the end of input it returns
	// io.EOF. The returned slice may be retained by the caller.
	ReadFrame() ([]byte, error)
}

// ErrFrameTooLarge reports an inbound frame over the transport's limit.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrConnStopped is why a connection ended when its tree stopped it (the
// tree was closed) rather than the connection finishing by itself.
var ErrConnStopped = errors.New("connection stopped by its supervisor")

// ConnConfig describes one byte-stream connection (stdio, or any other
// stream carrying newline-delimited JSON-RPC).
type ConnConfig struct {
	// Prefix names the connection in the tree ("stdio" → snodo/stdio$1).
	Prefix string
	// Name, when set, is shown in the tree as the connection's "name"
	// attribute.
	Name string
	// Runtime serves the connection's messages.
	Runtime *dispatch.Runtime
	// Input yields inbound frames. The connection reads it from a
	// goroutine it owns; it never closes it.
	Input FrameReader
	// Output receives outbound frames. The connection never closes it.
	Output io.Writer
	// WriteTimeout bounds each write; a write past it is terminal.
	// Required.
	WriteTimeout time.Duration
	// RequestTimeout overrides the executor's default deadline; zero
	// keeps it.
	RequestTimeout time.Duration
	// MaxSubscriptions bounds the subscriptions/listen streams open at
	// once on the connection; each also takes a slot of the executor's
	// shared subscription cap. Required.
	MaxSubscriptions int
	// Transport is reported to the Runtime with each message.
	Transport dispatch.TransportKind
}

// Conn is the handle of a running connection. Its methods are safe for
// concurrent use.
type Conn interface {
	// ID returns the connection's path in the tree.
	ID() string
	// Done is closed once every actor of the connection has stopped.
	Done() <-chan struct{}
	// Err returns why the connection ended: nil after a clean end of
	// input. It is meaningful once Done is closed.
	Err() error
	// ProtocolVersion returns the version a successful initialize
	// negotiated on the connection, or "".
	ProtocolVersion() string
	// Session returns the connection's initialize-era session.
	Session() *dispatch.Session
	// Stop ends the connection at once with err (nil is allowed):
	// running work is cancelled and delivers nothing, the reader stops,
	// nothing more is written.
	Stop(err error)
	// Notify writes one complete frame through the connection's writer,
	// after the frames already waiting, and returns once it has been
	// written. It fails with ErrConnClosed when the connection is gone or
	// ends normally before the frame's turn; with a *DeliveryError of kind
	// ErrConnDown when the connection fails while the frame waits, or
	// ErrOutputFailed when the frame's own write fails; and with ctx's
	// error when ctx ends first, in which case the frame may still be
	// written.
	Notify(ctx context.Context, frame []byte) error
	// WaitHandlers waits until every application handler started for the
	// connection has returned, or ctx ends, and returns the handlers
	// still running then, oldest first.
	WaitHandlers(ctx context.Context) []HandlerInfo
	// WaitOutput waits until the connection's last write has returned, or
	// ctx ends, and reports whether it did.
	WaitOutput(ctx context.Context) bool
}

// HandlerInfo describes an application handler still running.
type HandlerInfo struct {
	// ID is the request id as text ("7", `"a"`).
	ID string
	// Method is the request's method.
	Method string
	// Started is when the request was admitted.
	Started time.Time
}
