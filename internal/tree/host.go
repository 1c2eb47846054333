package tree

// What a transport gives and gets for a host: a node that serves one
// request per exchange, such as Streamable HTTP.

import (
	"context"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/jsonrpc"
)

// HostConfig describes a Host.
type HostConfig struct {
	// Prefix names the host in the tree ("http" → snodo/http$1).
	Prefix string
	// Kind is the host's node kind: KindListener or KindHandler.
	Kind Kind
	// Attrs, when set, adds attributes to the host's node. It runs on the
	// host actor's goroutine and must only read goroutine-safe state.
	Attrs func(map[string]string)
	// Run, when set, runs on a goroutine the host starts once it has
	// started: a listener's accept loop. The host does not stop when it
	// returns; the transport decides.
	Run func()
	// Halt, when set, is called when the host stops for any reason. It
	// must make Run return and must not block.
	Halt func()
}

// Host is the tree node of a transport that serves one request per
// exchange: the native HTTP listener (kind listener) or an http.Handler
// mounted in an application's server (kind handler). Each exchange in
// flight is a request actor under the host, and an open subscription
// stream is a subscription actor under its request. When the host stops,
// for whatever reason, every job it admitted is cancelled and delivers
// nothing.
type Host interface {
	// ID returns the host's path in the tree.
	ID() string
	// Done is closed once the host and every actor under it have
	// stopped.
	Done() <-chan struct{}
	// Context ends when the host stops: its work is then cancelled.
	Context() context.Context
	// Finish asks the tree to stop the host (children report, parents
	// stop them). Work still running is cancelled; Done closes once the
	// host has stopped. Finish may be called more than once.
	Finish()
	// Begin admits spec's job and starts a request actor for it. It fails
	// with executor.ErrDuplicate, ErrOverloaded or ErrScopeClosed (the
	// host has stopped), and then starts nothing.
	Begin(spec RequestSpec) (Exchange, error)
	// BeginStream admits a stream exchange and starts its request and
	// subscription actors. It fails with executor.ErrDuplicate or
	// ErrScopeClosed, and then starts nothing and releases nothing: the
	// caller still owns the stream.
	BeginStream(spec StreamSpec) (Exchange, error)
}

// RequestSpec describes one exchange that runs a job under a host.
type RequestSpec struct {
	// Key rejects a second job with the same key while the first is in
	// flight (executor.ErrDuplicate); nil for no check.
	Key any
	// ID describes the request in the tree.
	ID jsonrpc.ID
	// Method describes the request in the tree.
	Method string
	// Peer is the client's address, for the tree.
	Peer string
	// Timeout overrides the executor's default deadline (zero: default).
	Timeout time.Duration
	// Run does the work; its context ends on cancellation, the deadline
	// and the host stopping.
	Run func(ctx context.Context) any
	// Done receives the job's one result, unless it was cancelled.
	Done func(executor.Result)
	// Task, when set, is Run and Done in one value (no closures to
	// allocate); Run and Done are then ignored.
	Task executor.Task
}

// StreamSpec describes an exchange that answers with a subscription
// stream. It runs no job and takes no execution slot: the transport's
// goroutine for the exchange drives the stream. The request actor gets a
// subscription actor child, which releases the stream when it stops.
type StreamSpec struct {
	// Key rejects the stream while a job or stream with the same key is
	// in flight in the host (executor.ErrDuplicate); nil for no check.
	Key any
	// ID describes the request in the tree.
	ID jsonrpc.ID
	// Method describes the request in the tree.
	Method string
	// Peer is the client's address, for the tree.
	Peer string
	// Describe, when set, returns the subscription actor's attributes
	// (its filter). It runs on the actor's goroutine.
	Describe func() map[string]string
	// Release returns the stream's subscription slot. It is called once,
	// when the subscription actor stops, whatever the reason, or at End
	// (the actor may never start).
	Release func()
	// Close closes the stream's source, under the same rule as Release.
	Close func()
}

// Exchange is one exchange admitted by a Host. The goroutine that serves
// it calls End exactly when it is over, however it ended.
type Exchange interface {
	// Cancel stops the job without delivery and reports whether it
	// prevented one. A stream has no job: Cancel does nothing.
	Cancel() bool
	// SetStreaming marks the exchange as answering with a stream, for the
	// tree.
	SetStreaming()
	// End reports the exchange over: its request actor (and subscription
	// actor) stop, and a job still running is cancelled. Only the first
	// call counts.
	End()
}
