// Package stdio serves MCP over newline-delimited JSON on a byte stream,
// standard input and output by default.
//
// Requests run concurrently through the executor, so a fast request
// overtakes a slow one; each response is one atomic write through the
// connection's writer actor; notifications/cancelled stops a request and no
// late response is written for it; at end of input the transport lets
// admitted requests finish, writes their responses, and returns. A write
// that fails, or blocks past the write timeout, ends the connection. Input
// is read in chunks, and no more than the line limit of one line is ever
// held in memory.
//
// A subscriptions/listen (with a Runtime built with
// dispatch.WithSubscriptions) opens a stream that shares the connection
// with everything else: requests keep being read and answered while
// streams are open. Each stream is an actor under the connection with no
// goroutine of its own and no execution slot, and their number is bounded
// ([Limits].MaxSubscriptions). When the server ends a stream (its source
// completed, or input ended) it writes the final result and then
// notifications/cancelled naming the listen request; a stream the client
// cancels gets neither.
//
// An initialize-era client (2025-11-25, 2025-06-18) negotiates once with
// initialize; the connection is its session: later messages are served
// under the negotiated version, logging/setLevel holds for the
// connection, a handler's InputRequired becomes real server-to-client
// requests whose answers the connection routes back by id (an answer
// matching nothing is ignored; one still awaited when input ends fails),
// and resources/subscribe and list changes come from the Runtime's SessionSource.
//
// [Serve] runs the transport in the calling goroutine. [Start] runs it in
// the background, as a child of an application's supervision tree, and
// returns a [Conn] handle, which sends application notifications
// ([Conn.Notify]); [Lookup] finds a named one in a tree.
package stdio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/supervisor"
)

// ErrStopped is why a transport ended when it was told to: its handle's
// Stop was called, or the supervision tree it runs in was closed (the
// error says which).
var ErrStopped = errors.New("stdio: transport stopped")

// Conn is the handle of a running stdio transport: one connection, its
// writer and its in-flight requests in the supervision tree. Its methods
// are safe for concurrent use.
type Conn struct {
	ac      tree.Conn
	started chan struct{} // closed once start has set ac (or failed): a named Conn is found before
	name    string
	allowed map[string]bool
	logger  *slog.Logger
	grace   time.Duration
	// writeTimeout bounds the wait for a write in progress at the end.
	writeTimeout time.Duration

	sup     *supervisor.Supervisor // closed at the end when owned
	sys     tree.System
	ownsSup bool
	unname  func() // releases the name, when there is one

	stopOnce sync.Once
	stopMu   sync.Mutex
	stopAt   time.Time // when Stop or the context asked the transport to end
	stopCtx  func() bool

	done chan struct{}
	err  error // set before done closes
}

// Serve runs the stdio transport until end of input and until admitted
// requests finish, then returns nil. Cancelling ctx ends the connection at
// once: running handlers are cancelled and Serve returns an error wrapping
// ctx's error within the grace period, even if a handler ignores
// cancellation. A failed or timed-out write ends the connection with an
// error wrapping [ErrOutputFailed] and the cause: the write's error, or
// for a write past the write timeout an error matching
// os.ErrDeadlineExceeded.
func Serve(ctx context.Context, rt *dispatch.Runtime, opts ...Option) error {
	c, err := Start(ctx, rt, opts...)
	if err != nil {
		return err
	}
	return c.Wait()
}

// Start starts the stdio transport in the background and returns its
// handle. The transport runs as a child of the supervision tree given by
// [WithSupervisor] (a private one otherwise) until input ends and admitted
// requests finish, until ctx is cancelled, or until [Conn.Stop]; [Conn.Wait]
// returns what [Serve] would.
func Start(ctx context.Context, rt *dispatch.Runtime, opts ...Option) (*Conn, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt.applyStdio(&o); err != nil {
			return nil, fmt.Errorf("stdio: %w", err)
		}
	}
	if rt == nil {
		return nil, errors.New("stdio: nil Runtime")
	}
	c := &Conn{name: o.name, logger: rt.Logger(), grace: o.limits.GracePeriod, writeTimeout: o.limits.WriteTimeout, sup: o.sup, done: make(chan struct{}), started: make(chan struct{})}
	c.allowed = make(map[string]bool, len(o.notificationMethods))
	for _, m := range o.notificationMethods {
		c.allowed[m] = true
	}
	err := c.start(rt, o)
	close(c.started)
	if err != nil {
		c.release()
		c.closeOwned(false)
		return nil, err
	}
	c.stopCtx = context.AfterFunc(ctx, func() { c.stop(context.Cause(ctx)) })
	go c.finish()
	return c, nil
}

// start creates what the transport needs and starts its connection.
func (c *Conn) start(rt *dispatch.Runtime, o options) error {
	if c.sup == nil {
		// The private tree's shared subscription cap never binds before
		// the connection's own.
		sup, err := supervisor.New(rt, supervisor.WithLimits(supervisor.Limits{MaxSubscriptions: max(privateMaxSubscriptions, o.limits.MaxSubscriptions)}))
		if err != nil {
			return err
		}
		c.sup, c.ownsSup = sup, true
	}
	c.sys = tree.SystemOf(c.sup)
	c.logger = c.sys.Logger()
	if c.name != "" {
		release, err := c.sys.Claim(nameKey(c.name), c)
		if err != nil {
			return fmt.Errorf("stdio: %w", err)
		}
		c.unname = release
	}
	input := newLineReader(o.input, o.limits.MaxLineBytes)
	input.sink = rt.Instrumentation()
	ac, err := c.sys.StartConn(tree.ConnConfig{
		Prefix:           "stdio",
		Name:             c.name,
		Runtime:          rt,
		Input:            input,
		Output:           o.output,
		WriteTimeout:     o.limits.WriteTimeout,
		RequestTimeout:   o.limits.RequestTimeout,
		MaxSubscriptions: o.limits.MaxSubscriptions,
		Transport:        dispatch.TransportStdio,
	})
	if errors.Is(err, tree.ErrSystemClosed) {
		return fmt.Errorf("%w: its supervision tree was closed", ErrStopped)
	}
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	c.ac = ac
	return nil
}

// ID returns the connection's path in the supervision tree, such as
// "snodo/stdio$1".
func (c *Conn) ID() string { return c.ac.ID() }

// Done is closed once the transport has ended: every actor of the
// connection has stopped, handlers have returned or been abandoned after
// the grace period, and a private supervision tree has been closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Wait blocks until the transport has ended and returns why: nil after a
// clean end of input, otherwise an error saying what ended it.
func (c *Conn) Wait() error {
	<-c.done
	return c.err
}

// Stop ends the transport as cancelling its context does: running
// handlers are cancelled and deliver nothing, nothing more is written, and
// the transport ends within the grace period. It does not wait; use Wait.
func (c *Conn) Stop() { c.stop(ErrStopped) }

func (c *Conn) stop(err error) {
	c.stopOnce.Do(func() {
		c.stopMu.Lock()
		c.stopAt = time.Now()
		c.stopMu.Unlock()
		c.ac.Stop(err)
	})
}

// finish is the handle's goroutine: it waits for the connection to end,
// then for its handlers (bounded by the grace period, counted from the
// stop request when there was one), reports those it abandons, and
// releases what the transport owns.
func (c *Conn) finish() {
	<-c.ac.Done()
	c.stopMu.Lock()
	from := c.stopAt
	c.stopMu.Unlock()
	// A write already started finishes before the transport reports the
	// end, so a caller closing the output then cannot cut a frame. The wait
	// is bounded as every write is, by the write timeout, and after a stop
	// by the grace period too, which Stop promises.
	waitUntil := time.Now().Add(c.writeTimeout)
	if !from.IsZero() && from.Add(c.grace).Before(waitUntil) {
		waitUntil = from.Add(c.grace)
	}
	wctx, wcancel := context.WithDeadline(context.Background(), waitUntil)
	c.ac.WaitOutput(wctx)
	wcancel()
	c.stopCtx()
	if from.IsZero() {
		from = time.Now()
	}
	deadline := from.Add(c.grace)
	gctx, cancel := context.WithDeadline(context.Background(), deadline)
	abandoned := c.ac.WaitHandlers(gctx)
	for _, h := range abandoned {
		c.logger.Warn("snodo: handler ignored cancellation past the grace period; abandoning it, its result is discarded",
			"connection", c.ac.ID(), "id", h.ID, "method", h.Method, "running", time.Since(h.Started).Round(time.Millisecond).String())
	}
	cancel()
	c.release()
	c.closeOwned(len(abandoned) > 0)
	c.err = connError(c.ac.Err())
	close(c.done)
}

// release gives the name back, if the transport holds one.
func (c *Conn) release() {
	if c.unname != nil {
		c.unname()
	}
}

// connError says why the connection ended, in this package's terms.
func connError(err error) error {
	var de *tree.DeliveryError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tree.ErrConnStopped):
		return fmt.Errorf("%w: its supervision tree was closed", ErrStopped)
	case errors.As(err, &de) && de.Kind == tree.ErrOutputFailed:
		return fmt.Errorf("%w: %w", ErrOutputFailed, de.Reason)
	case errors.Is(err, ErrStopped):
		return err
	}
	return fmt.Errorf("stdio: %w", err)
}

// closeOwned closes the supervision tree the transport created. When
// handlers were abandoned the grace period is spent, so its executor is
// closed without waiting for them again (it logs those it abandons).
func (c *Conn) closeOwned(abandoned bool) {
	if !c.ownsSup {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.grace)
	defer cancel()
	if !abandoned {
		if err := c.sup.Close(ctx); err != nil {
			c.logger.Warn("snodo: stdio shutdown", "error", err)
		}
		return
	}
	if err := c.sys.Close(ctx); err != nil {
		c.logger.Warn("snodo: stdio shutdown", "error", err)
	}
	spent, stop := context.WithCancel(context.Background())
	stop()
	_ = c.sys.Executor().Close(spent)
}

// privateMaxSubscriptions is the subscription cap of the private tree's
// executor when the connection's own cap is lower.
const privateMaxSubscriptions = 256
