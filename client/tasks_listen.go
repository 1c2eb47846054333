// This file follows tasks without polling where the server allows it: a
// listen stream for task ids (ListenTasks), and the wait for a task's
// next state that WaitTask and AwaitTask share, which falls back to
// polling tasks/get when the server offers no such stream.

package client

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/snodo-go/snodo/mcp"
)

// ListenTasks opens a listen stream for the status of the given tasks
// (Listen with a filter naming them in taskIds): each status change of
// one of them arrives as an Event whose Task holds the task's state. The
// acknowledgement (Subscription.Acknowledged, Keys[mcp.FilterTaskIDs])
// lists the ids the server follows: only tasks the client's principal
// created; ids it does not know are left out. A server without listen
// streams refuses the request (-32601); an initialize-era connection has
// no tasks and acknowledges none.
func (c *Client) ListenTasks(ctx context.Context, ids ...string) (*Subscription, error) {
	return c.Listen(ctx, mcp.SubscriptionFilter{Keys: map[string][]string{mcp.FilterTaskIDs: ids}})
}

// WaitTask waits until the task ends and returns its final state (status
// completed, failed or cancelled, with its result or error). It follows
// the task on a listen stream when the server offers one for it, reading
// it once with tasks/get after the stream is acknowledged (so a change
// made before is not missed) and again after an overflow report; without
// one, it polls tasks/get at the interval the task suggests
// (pollIntervalMs; 500 ms when none). It answers no input: a task waiting
// for input waits until it is answered (UpdateTask) or cancelled; use
// AwaitTask to answer it through the registered handlers. When ctx ends
// first, WaitTask returns its error and the task goes on.
func (c *Client) WaitTask(ctx context.Context, id string) (*mcp.Task, error) {
	w := c.watchTask(ctx, id)
	defer w.close()
	t, err := c.GetTask(ctx, id)
	for {
		if err != nil {
			return nil, err
		}
		if t.Status.Terminal() {
			return t, nil
		}
		next, werr := w.wait(ctx, t)
		if werr != nil {
			return nil, werr
		}
		if next != nil {
			t = next
			continue
		}
		t, err = c.GetTask(ctx, id)
	}
}

// taskWatcher tells a follower of one task when its state may have
// changed: a listen stream's notification, or the poll interval.
type taskWatcher struct {
	c   *Client
	id  string
	sub *Subscription // nil: polling
}

// watchTask opens a listen stream for the task when the connection is
// 2026-07-28 and the server acknowledges the id; otherwise the watcher
// polls.
func (c *Client) watchTask(ctx context.Context, id string) *taskWatcher {
	w := &taskWatcher{c: c, id: id}
	if _, version, err := c.state(); err != nil || !stateless(version) {
		return w
	}
	sub, err := c.ListenTasks(ctx, id)
	if err != nil {
		c.cfg.logger.Debug("client: no listen stream for the task; polling", "error", err)
		return w
	}
	if !slices.Contains(sub.Acknowledged().Keys[mcp.FilterTaskIDs], id) {
		_ = sub.Close()
		return w
	}
	w.sub = sub
	return w
}

// wait blocks until the task may have changed since last. It returns the
// state a notification carried, or nil when the caller should read the
// task with tasks/get: the poll interval passed, the stream reported an
// overflow, or the stream ended (the watcher polls from then on).
func (w *taskWatcher) wait(ctx context.Context, last *mcp.Task) (*mcp.Task, error) {
	for w.sub != nil {
		ev, err := w.sub.Next(ctx)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("client: awaiting task %s: %w", w.id, context.Cause(ctx))
		case err != nil:
			_ = w.sub.Close()
			w.sub = nil
			return nil, nil
		case ev.Dropped > 0:
			return nil, nil
		case ev.Task != nil && ev.Task.TaskID == w.id:
			return ev.Task, nil
		}
	}
	wait := time.Duration(last.PollIntervalMs) * time.Millisecond
	if wait <= 0 {
		wait = defaultTaskPoll
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("client: awaiting task %s: %w", w.id, context.Cause(ctx))
	}
}

// close ends the watcher's stream, if it has one.
func (w *taskWatcher) close() {
	if w.sub != nil {
		_ = w.sub.Close()
	}
}
