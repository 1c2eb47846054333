// This file is the tasks extension's part in subscriptions/listen: the
// taskIds filter member, kept to the listener's own tasks, and a
// notifications/tasks for each status change of a task, published through
// the Runtime's subscription source.

package tasks

import (
	"context"
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/taskstore"
)

// Publisher is where the Runner publishes the status changes of its
// tasks: a *hub.Hub, or a source that fans events out to other
// instances (backplane.Events). [Runner.Start] uses the Runtime's
// subscription source when it is one.
type Publisher interface {
	// Publish hands ev to the listeners whose filter names it.
	Publish(ev dispatch.Event) (dispatch.PublishResult, error)
}

// listenFilter is the taskIds member the extension adds to the filter of
// subscriptions/listen.
func (r *Runner) listenFilter() dispatch.ExtensionFilter {
	return dispatch.ExtensionFilter{Member: mcp.FilterTaskIDs, Method: mcp.NotificationTasks, Allow: r.allowListen}
}

// allowListen keeps the task ids a listener may follow: those of tasks
// its principal created that are still kept. Any other id (another
// principal's, an unknown, expired or malformed one) is left out of the
// acknowledgement, exactly as tasks/get refuses them all alike.
func (r *Runner) allowListen(ctx context.Context, info *dispatch.RequestInfo, ids []string) []string {
	eng, err := r.engine()
	if err != nil {
		return nil
	}
	principal := principalKey(info.Principal)
	kept := ids[:0]
	for _, id := range ids {
		if _, err := eng.lookup(ctx, principal, id); err == nil {
			kept = append(kept, id)
		}
	}
	return kept
}

// listenObserver publishes a notifications/tasks for each status change.
type listenObserver struct {
	pub    Publisher
	logger *slog.Logger
}

func (o listenObserver) started(*taskstore.Record) {}

func (o listenObserver) ended(string) {}

// changed publishes the task's new state when its status changed. The
// params are the task as tasks/get shows it (the result, error or input
// requests inlined), without resultType.
func (o listenObserver) changed(rec *taskstore.Record, from taskstore.Status) {
	if rec.Status == from {
		return
	}
	ev, err := statusEvent(rec)
	if err == nil {
		_, err = o.pub.Publish(ev)
	}
	if err != nil {
		o.logger.Warn("snodo: publishing a task's status", "status", rec.Status, "error", err)
	}
}

// statusEvent is the hub event of a task's state.
func statusEvent(rec *taskstore.Record) (dispatch.Event, error) {
	params, err := jsonwire.Marshal(view(rec, ""))
	if err != nil {
		return dispatch.Event{}, err
	}
	return dispatch.Event{Kind: dispatch.EventExtension, Member: mcp.FilterTaskIDs, Key: rec.ID,
		Method: mcp.NotificationTasks, Params: params}, nil
}

// observers tells each of its observers, in order.
type observers []observer

func (os observers) started(rec *taskstore.Record) {
	for _, o := range os {
		o.started(rec)
	}
}

func (os observers) changed(rec *taskstore.Record, from taskstore.Status) {
	for _, o := range os {
		o.changed(rec, from)
	}
}

func (os observers) ended(id string) {
	for _, o := range os {
		o.ended(id)
	}
}
