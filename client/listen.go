package client

// subscriptions/listen streams and the events they carry.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Event is one notification on a listen stream: a list change, an update
// of a subscribed resource, or a task's status. An Event with Dropped > 0 and no Method
// is an overflow report: that many events were dropped, oldest first,
// because the reader fell behind; it comes where they would have been.
type Event struct {
	// Method is the notification: notifications/tools/list_changed,
	// notifications/prompts/list_changed,
	// notifications/resources/list_changed,
	// notifications/resources/updated or notifications/tasks.
	Method string
	// URI is the updated resource, for notifications/resources/updated.
	URI string
	// Task is the task's state, for notifications/tasks: its status and,
	// as tasks/get shows them, its result, error or input requests.
	Task *mcp.Task
	// Params is the notification's raw params object.
	Params json.RawMessage
	// Dropped counts events lost before this point (overflow report).
	Dropped int64
}

func eventFrom(msg *jsonrpc.Message) Event {
	ev := Event{Method: msg.Method, Params: append(json.RawMessage(nil), msg.Params...)}
	if raw, ok := jsonwire.Member(msg.Params, "uri"); ok {
		ev.URI, _ = jsonwire.Unquote(raw)
	}
	if msg.Method == mcp.NotificationTasks {
		var t mcp.Task
		if unmarshal(msg.Params, &t) == nil && t.TaskID != "" {
			ev.Task = &t
		}
	}
	return ev
}

// Subscription is an open listen stream. Read it with Next, and
// Close it when done. Events are held in a bounded buffer; when the reader
// falls behind the oldest are dropped and an overflow report takes their
// place.
type Subscription struct {
	c        *Client
	filter   mcp.SubscriptionFilter
	capacity int
	cancel   context.CancelFunc
	legacy   bool

	ack   mcp.SubscriptionFilter
	acked chan struct{}
	done  chan struct{} // closed when the stream has ended
	wake  chan struct{} // capacity 1: an event or the end arrived

	mu        sync.Mutex
	buf       []Event
	pending   int64 // dropped since the last overflow report
	dropped   int64 // dropped in total
	err       error // why the stream ended (io.EOF: the server ended it)
	closeOnce sync.Once
}

// Listen opens a subscription for the notifications filter asks for. On
// 2026-07-28 it is a subscriptions/listen request whose stream stays
// open; in the initialize era the client subscribes to each resource
// (resources/subscribe) and filters the notifications the server sends on
// the connection. ctx bounds the wait for the server's acknowledgement
// only; the subscription lasts until Close, or until the server or the
// connection ends it.
//
// A filter whose Keys name task ids (mcp.FilterTaskIDs; see ListenTasks)
// declares the tasks extension on the request; the acknowledgement lists
// the ids the server agreed to follow (only tasks of the client's own
// principal), and each status change of those tasks arrives as a
// notifications/tasks Event with Task set. Initialize-era connections
// have no tasks: such keys are not acknowledged.
func (c *Client) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (*Subscription, error) {
	_, version, err := c.state()
	if err != nil {
		return nil, err
	}
	s := &Subscription{c: c, filter: filter, capacity: c.cfg.listenBuffer,
		acked: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	if !stateless(version) {
		return c.listenLegacy(ctx, s)
	}
	sctx, cancel := context.WithCancel(c.bg)
	s.cancel = cancel
	r := &request{method: "subscriptions/listen", params: map[string]any{"notifications": filter}, stream: true, noTimeout: true,
		task: len(filter.Keys[mcp.FilterTaskIDs]) > 0}
	p, err := c.start(sctx, r)
	if err != nil {
		cancel()
		return nil, err
	}
	c.wg.Add(1)
	go s.pump(sctx, p)
	select {
	case <-s.acked:
		return s, nil
	case <-s.done:
		select {
		case <-s.acked:
			// Acknowledged, then ended at once: the caller learns the end
			// from Next, as with any other stream.
			return s, nil
		default:
		}
		s.Close()
		return nil, s.Err()
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("client: subscriptions/listen: %w", context.Cause(ctx))
	}
}

// pump moves the stream's messages into the buffer until it ends.
func (s *Subscription) pump(ctx context.Context, p *pending) {
	defer s.c.wg.Done()
	answered := false
	var end error
	defer func() {
		if answered {
			p.ex.Close(nil)
		} else {
			p.ex.Close(cancelFrame(p.id, ctx))
		}
		s.finish(end)
	}()
	for {
		msg, err := p.ex.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				end = ErrClosed
			} else {
				end = fmt.Errorf("client: subscriptions/listen: %w", err)
			}
			return
		}
		switch msg.Kind {
		case jsonrpc.KindResponse:
			answered = true
			end = io.EOF
			if msg.Error != nil {
				end = decodeRPCError(msg.Error)
			}
			return
		case jsonrpc.KindNotification:
			switch msg.Method {
			case "notifications/subscriptions/acknowledged":
				var a struct {
					Notifications mcp.SubscriptionFilter `json:"notifications"`
				}
				_ = unmarshal(msg.Params, &a)
				s.ack = a.Notifications
				select {
				case <-s.acked:
				default:
					close(s.acked)
				}
			case "notifications/cancelled":
				// On stdio the server ends a listen stream this way.
				answered = true
				end = io.EOF
				return
			default:
				ev := eventFrom(msg)
				s.c.invalidate(ev)
				s.push(ev)
			}
		}
	}
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if len(s.buf) >= s.capacity {
		s.buf = s.buf[1:]
		s.pending++
		s.dropped++
	}
	s.buf = append(s.buf, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Subscription) finish(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// Done is closed when the stream has ended; buffered events may remain.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Acknowledged returns the part of the filter the server agreed to
// honour.
func (s *Subscription) Acknowledged() mcp.SubscriptionFilter { return s.ack }

// Err returns why the stream ended: nil while it is open, io.EOF when the
// server ended it gracefully, ErrClosed after Close.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
	default:
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Next returns the next event. Buffered events are delivered even after
// the stream ended; then Next returns the reason it ended (io.EOF when the
// server ended it gracefully).
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if s.pending > 0 {
			ev := Event{Dropped: s.pending}
			s.pending = 0
			s.mu.Unlock()
			return ev, nil
		}
		if len(s.buf) > 0 {
			ev := s.buf[0]
			s.buf = slices.Delete(s.buf, 0, 1)
			s.mu.Unlock()
			return ev, nil
		}
		s.mu.Unlock()
		select {
		case <-s.done:
			// Drain what arrived before the end.
			s.mu.Lock()
			empty := len(s.buf) == 0 && s.pending == 0
			err := s.err
			s.mu.Unlock()
			if empty {
				return Event{}, err
			}
		case <-s.wake:
		case <-ctx.Done():
			return Event{}, context.Cause(ctx)
		}
	}
}

// Close ends the subscription (the server is told, as the transport
// requires) and waits until its stream is released.
func (s *Subscription) Close() error {
	s.closeOnce.Do(func() {
		if s.legacy {
			s.c.closeLegacy(s)
			s.finish(ErrClosed)
			return
		}
		s.cancel()
		<-s.done
	})
	return nil
}

// matches reports whether an event belongs on an initialize-era
// subscription.
func matches(f mcp.SubscriptionFilter, ev Event) bool {
	switch ev.Method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/resources/updated":
		for _, u := range f.ResourceSubscriptions {
			if u == ev.URI || related(u, ev.URI) {
				return true
			}
		}
	}
	return false
}

// publish hands a notification that arrived outside any exchange to the
// initialize-era subscriptions it matches.
func (c *Client) publish(ev Event) {
	c.subsMu.Lock()
	defer c.subsMu.Unlock()
	for s := range c.subs {
		if matches(s.ack, ev) {
			s.push(ev)
		}
	}
}

// listenLegacy emulates a listen stream in the initialize era. The
// subscription is registered before resources/subscribe goes out, so no
// update that follows the subscription is missed.
func (c *Client) listenLegacy(ctx context.Context, s *Subscription) (*Subscription, error) {
	s.legacy = true
	caps := c.Server().Capabilities
	var ack mcp.SubscriptionFilter
	if caps.Tools != nil && caps.Tools.ListChanged {
		ack.ToolsListChanged = s.filter.ToolsListChanged
	}
	if caps.Prompts != nil && caps.Prompts.ListChanged {
		ack.PromptsListChanged = s.filter.PromptsListChanged
	}
	if caps.Resources != nil {
		ack.ResourcesListChanged = caps.Resources.ListChanged && s.filter.ResourcesListChanged
		if caps.Resources.Subscribe {
			ack.ResourceSubscriptions = slices.Clone(s.filter.ResourceSubscriptions)
		}
	}
	c.subsMu.Lock()
	s.ack = ack
	c.subs[s] = struct{}{}
	c.subsMu.Unlock()
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if o, ok := conn.(interface{ OpenEventStream() }); ok {
		o.OpenEventStream()
	}
	for i, uri := range ack.ResourceSubscriptions {
		if err := c.Call(ctx, "resources/subscribe", map[string]any{"uri": uri}, nil); err != nil {
			c.subsMu.Lock()
			s.ack.ResourceSubscriptions = ack.ResourceSubscriptions[:i]
			c.subsMu.Unlock()
			c.closeLegacy(s)
			return nil, err
		}
	}
	close(s.acked)
	return s, nil
}

// closeLegacy unregisters an initialize-era subscription and unsubscribes
// from its resources.
func (c *Client) closeLegacy(s *Subscription) {
	c.subsMu.Lock()
	delete(c.subs, s)
	c.subsMu.Unlock()
	for _, uri := range s.ack.ResourceSubscriptions {
		ctx, cancel := context.WithTimeout(c.bg, c.cfg.requestTimeout)
		if err := c.Call(ctx, "resources/unsubscribe", map[string]any{"uri": uri}, nil); err != nil && c.bg.Err() == nil {
			c.cfg.logger.Debug("client: resources/unsubscribe", "uri", uri, "error", err)
		}
		cancel()
	}
}
