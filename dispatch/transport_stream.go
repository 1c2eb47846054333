// Transport-author API: the Stream of a subscriptions/listen, pulled one
// frame at a time.

package dispatch

// Transport-author API: one subscriptions/listen stream (OpenStream,
// Stream), which the transport drives frame by frame.

import (
	"context"
	"errors"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Stream is one open subscriptions/listen stream: the source's feed, the
// accepted filter, and the frames to write. A transport opens it with
// [Runtime.OpenStream] and drives it: write each frame [Stream.Next]
// returns, and ask for the next one only once that write is done. The
// stream holds no goroutine; an idle one waits for the wake function the
// transport gave.
//
// Its methods are safe for concurrent use: a transport may Close it from
// another goroutine (its owner stopping) while Next runs.
type Stream struct {
	rt       *Runtime
	call     *Call
	accepted mcp.SubscriptionFilter
	wake     func()
	events   atomic.Int64 // events returned by Next, for the tree

	mu         sync.Mutex
	sub        Subscription // nil once closed
	acked      bool
	completing bool
	ended      bool
	guard      map[string]struct{}    // accepted URIs, built on the first update that needs it
	keyGuard   map[memberKey]struct{} // accepted extension keys, built likewise
}

// step is what advance found.
type step uint8

const (
	stepFrame step = iota // a frame to write
	stepIdle              // nothing ready: wait for wake
	stepEnd               // the stream ends now, with the error returned (nil: gracefully)
	stepOver              // the stream had already ended
)

// maxSkipsPerNext bounds the events one Next may drop (events the filter
// does not name) before it yields, so a source that floods the stream
// with unwanted events cannot hold the driver's goroutine.
const maxSkipsPerNext = 256

// errListenNeedsStream answers a subscriptions/listen executed without a
// way to stream (no Notifier).
var errListenNeedsStream = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "subscriptions/listen needs a transport that can stream"}

// errSourceOveraccepted is why a source that accepted more than it was
// asked is refused.
var errSourceOveraccepted = errors.New("the subscription source accepted notifications the client did not ask for")

// OpenStream opens the subscription stream of an admitted
// subscriptions/listen call (a call whose Info.Method is [MethodListen]).
// It asks the Runtime's source for a feed, with panic isolation, and
// checks what the source accepted. wake must not block and may be called
// from any goroutine, also after the stream ended: it means Next may have
// something to return.
//
// It returns the stream, or nil and the error response to send (the
// request is then over: nothing was opened).
func (rt *Runtime) OpenStream(ctx context.Context, c *Call, wake func()) (*Stream, Outcome) {
	s, err := rt.openStream(withCall(ctx, rt, c), c, wake)
	if err != nil {
		return nil, errorOutcome(c.Info.ID, rt.toRPCError(c, err))
	}
	return s, Outcome{}
}

func (rt *Runtime) openStream(ctx context.Context, c *Call, wake func()) (s *Stream, err error) {
	if rt.source == nil {
		return nil, rt.methodNotFound(c.Info.Method)
	}
	f := c.listenFilter
	if f == nil {
		parsed, jerr := rt.parseListenParams(c.Params)
		if jerr != nil {
			return nil, jerr
		}
		f = &parsed
	}
	var sub Subscription
	defer func() {
		if r := recover(); r != nil {
			err = rt.recovered(c, r, debug.Stack())
			if sub != nil {
				rt.closeSubscription(c, sub)
			}
		}
	}()
	req := &SubscriptionRequest{Info: &c.Info, Filter: rt.offered(ctx, c, *f), Wake: wake}
	sub, accepted, err := rt.source.OpenSubscription(ctx, req)
	if err != nil {
		if sub != nil {
			rt.closeSubscription(c, sub)
		}
		return nil, rt.callbackError(c, err)
	}
	if sub == nil {
		return nil, rt.internal(c, "subscription source", errors.New("OpenSubscription returned no subscription"))
	}
	if !filterWithin(accepted, req.Filter) {
		rt.closeSubscription(c, sub)
		return nil, rt.internal(c, "subscription source", errSourceOveraccepted)
	}
	accepted.ResourceSubscriptions = dedupe(accepted.ResourceSubscriptions)
	if accepted.Keys != nil {
		keys := make(map[string][]string, len(accepted.Keys))
		for m, list := range accepted.Keys {
			keys[m] = dedupe(slices.Clone(list))
		}
		accepted.Keys = keys
	}
	return &Stream{rt: rt, call: c, accepted: accepted, wake: wake, sub: sub}, nil
}

// dedupe keeps the first of each repeated string, in order.
func dedupe(list []string) []string {
	if len(list) < 2 {
		return list
	}
	seen := make(map[string]struct{}, len(list))
	out := list[:0:0]
	for _, s := range list {
		if _, dup := seen[s]; !dup {
			seen[s] = struct{}{}
			out = append(out, s)
		}
	}
	return out
}

// Accepted returns the filter the stream honours.
func (s *Stream) Accepted() mcp.SubscriptionFilter { return s.accepted }

// Attrs describes the stream for the supervision tree: its id, the
// accepted filter, and the number of events sent so far.
func (s *Stream) Attrs() map[string]string {
	m := map[string]string{"id": s.call.Info.ID.String(), "events": strconv.FormatInt(s.events.Load(), 10)}
	filterAttrs(s.accepted, m)
	return m
}

// Next returns the next frame to write and whether it is the stream's
// last. The first frame is the acknowledgement; then come the source's
// events, each tagged with the stream's id; the last is the final
// response (a result after a graceful end, an error after a failure),
// after which the source is closed. A nil frame that is not last means
// nothing is ready: call Next again once wake has been called. After
// Close, or after the last frame, Next returns (nil, true).
func (s *Stream) Next() (frame []byte, last bool) {
	frame, st, err := s.advance()
	switch st {
	case stepEnd:
		return s.rt.finalFrame(s.call, err), true
	case stepOver:
		return nil, true
	}
	return frame, false
}

// Complete asks the stream to end gracefully, as a transport does when it
// shuts down: the next Next returns the final result (after the
// acknowledgement, if that was not returned yet) and closes the source.
// It does nothing once the stream has ended.
func (s *Stream) Complete() {
	s.mu.Lock()
	s.completing = true
	s.mu.Unlock()
}

// Close abandons the stream: the source is closed (once, whatever else
// happened) and nothing more is to be written. It is what a transport
// calls when the client went away or the stream's owner stopped.
func (s *Stream) Close() {
	s.mu.Lock()
	if !s.ended {
		s.endLocked()
	}
	s.mu.Unlock()
}

// endLocked marks the stream over and closes the source.
func (s *Stream) endLocked() {
	s.ended = true
	if sub := s.sub; sub != nil {
		s.sub = nil
		s.rt.closeSubscription(s.call, sub)
	}
}

// advance is Next before the final response is shaped.
func (s *Stream) advance() ([]byte, step, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, stepOver, nil
	}
	if !s.acked {
		s.acked = true
		b, err := encodeAcknowledged(s.accepted, s.call.Info.ID)
		if err != nil {
			s.endLocked()
			return nil, stepEnd, err
		}
		return b, stepFrame, nil
	}
	if s.completing {
		s.endLocked()
		return nil, stepEnd, nil
	}
	for range maxSkipsPerNext {
		ev, err := s.pull()
		switch {
		case err == nil:
			if !s.allowed(ev) {
				continue
			}
			b, err := EncodeEvent(ev, s.call.Info.ID)
			if err != nil {
				s.rt.logger.Warn("snodo: subscription source sent an event that cannot be encoded; dropping it",
					"id", s.call.Info.ID.String(), "kind", ev.Kind.String(), "error", err)
				continue
			}
			s.events.Add(1)
			return b, stepFrame, nil
		case errors.Is(err, ErrNoEvent):
			return nil, stepIdle, nil
		case errors.Is(err, ErrSubscriptionComplete):
			s.endLocked()
			return nil, stepEnd, nil
		default:
			s.endLocked()
			return nil, stepEnd, err
		}
	}
	// Dropped a run of unwanted events: yield, and come back for more.
	s.wake()
	return nil, stepIdle, nil
}

// pull calls the source's Next with panic isolation.
func (s *Stream) pull() (ev Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.rt.recovered(s.call, r, debug.Stack())
		}
	}()
	return s.sub.Next()
}

// allowed reports whether the accepted filter names ev. Events it does not
// name are never sent, whatever the source delivers.
func (s *Stream) allowed(ev Event) bool {
	if ev.Kind == EventExtension {
		return s.allowedKey(ev)
	}
	if ev.Kind != EventResourceUpdated {
		return filterWants(s.accepted, ev)
	}
	uris := s.accepted.ResourceSubscriptions
	if len(uris) <= 8 {
		return filterWants(s.accepted, ev)
	}
	if s.guard == nil {
		s.guard = make(map[string]struct{}, len(uris))
		for _, u := range uris {
			s.guard[u] = struct{}{}
		}
	}
	_, ok := s.guard[ev.key()]
	return ok
}

// allowedKey reports whether the accepted filter names an extension
// event's key.
func (s *Stream) allowedKey(ev Event) bool {
	if len(s.accepted.Keys[ev.Member]) <= 8 {
		return filterWants(s.accepted, ev)
	}
	if s.keyGuard == nil {
		s.keyGuard = map[memberKey]struct{}{}
		for m, keys := range s.accepted.Keys {
			for _, k := range keys {
				s.keyGuard[memberKey{m, k}] = struct{}{}
			}
		}
	}
	_, ok := s.keyGuard[memberKey{ev.Member, ev.Key}]
	return ok
}

// closeSubscription closes a source's feed with panic isolation.
func (rt *Runtime) closeSubscription(c *Call, sub Subscription) {
	defer func() {
		if r := recover(); r != nil {
			_ = rt.recovered(c, r, debug.Stack())
		}
	}()
	sub.Close()
}

// listenResult is the neutral result of a stream that ended gracefully.
type listenResult struct{}

// finalFrame shapes a stream's last response: the listen result after a
// graceful end (err nil), the error otherwise.
func (rt *Runtime) finalFrame(c *Call, err error) []byte {
	if err != nil {
		return errorOutcome(c.Info.ID, rt.toRPCError(c, err)).Frame
	}
	wire, err := c.dialect.ShapeResult(rt, c, &listenResult{})
	if err != nil {
		return errorOutcome(c.Info.ID, rt.internal(c, "shaping result", err)).Frame
	}
	body, err := jsonwire.Marshal(wire)
	if err != nil {
		return errorOutcome(c.Info.ID, rt.internal(c, "encoding result", err)).Frame
	}
	return rpcwire.AppendResult(make([]byte, 0, len(body)+48), c.Info.ID, body)
}

// opListen serves subscriptions/listen through Execute, for transports
// that run every call as one blocking operation: the frames go through
// the call's Notifier, each written before the next event is pulled, and
// the operation returns the final result when the feed ends or the
// transport drains. Stream transports (stdio, Streamable HTTP) use
// OpenStream instead, so an open stream holds no execution slot.
func opListen(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	if c.Notifier == nil {
		return nil, errListenNeedsStream
	}
	wake := make(chan struct{}, 1)
	s, err := rt.openStream(ctx, c, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	drain := draining(ctx)
	for {
		frame, st, err := s.advance()
		switch st {
		case stepEnd:
			if err != nil {
				return nil, err
			}
			return &listenResult{}, nil
		case stepOver:
			return &listenResult{}, nil
		case stepFrame:
			if err := c.Notifier.Notify(ctx, frame); err != nil {
				return nil, err
			}
			continue
		}
		select {
		case <-wake:
		case <-drain:
			return &listenResult{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// memberKey is one key of an extension's filter member.
type memberKey struct{ member, key string }
