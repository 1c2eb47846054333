// The tasks extension through the proxy: task-augmented calls, tasks/get,
// tasks/update and tasks/cancel forwarded to the remote, and the status
// of the tasks created through the proxy relayed to its listen streams.

package proxy

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// The proxy only forwards tasks: it keeps no task store, and the
// remote's stays authoritative (a task's status, result and expiry are
// what the remote says; a proxy restarted in between still reaches the
// task by its id). It installs the extension when the remote offers it
// on 2026-07-28 (initialize-era remotes have no tasks), with the remote's
// settings. A tools/call declaring the extension goes upstream declaring
// it too, and the remote's answer (a task handle, or the tool's result)
// comes back as it is. Input the remote asks for before creating a task
// goes back the ordinary way (the call is forwarded again as an ordinary
// one, still declaring the extension, whose input_required result is
// relayed), and the retry carrying the answers is forwarded declaring
// the extension, so the remote may then create its task. tasks/get, tasks/update and tasks/cancel are forwarded
// by task id. The remote sees every task as the proxy client's: the
// proxy does not keep one of its clients from reaching another's task
// by its id (ids are the remote's, unguessable ones in this library);
// an application that needs it keeps its own record in an Authorizer.
//
// Each task created through the proxy is followed on a listen stream of
// its own upstream until it ends (at most Limits.MaxFollowedTasks at
// once; past it, clients poll with tasks/get), and its status
// notifications are published on the proxy's hub, reaching the proxy's
// listen streams that name the task in taskIds.

// tasksExtension returns the option installing the tasks extension in
// the proxy Runtime, or nil when the remote does not offer it.
func (b *Backend) tasksExtension() dispatch.Option {
	srv := b.client.Server()
	settings, ok := srv.Capabilities.Extensions[mcp.ExtensionTasks]
	if !ok || srv.ProtocolVersion != mcp.Version20260728 {
		return nil
	}
	return dispatch.WithExtension(dispatch.Extension{
		ID:       mcp.ExtensionTasks,
		Settings: settings,
		Versions: []string{mcp.Version20260728},
		Methods: map[string]dispatch.ExtensionHandler{
			mcp.MethodTasksGet:    b.taskMethod,
			mcp.MethodTasksUpdate: b.taskMethod,
			mcp.MethodTasksCancel: b.taskMethod,
		},
		NameParams: map[string]string{
			mcp.MethodTasksGet: "taskId", mcp.MethodTasksUpdate: "taskId", mcp.MethodTasksCancel: "taskId",
		},
		ToolCall: b.taskToolCall,
		Filters:  []dispatch.ExtensionFilter{{Member: mcp.FilterTaskIDs, Method: mcp.NotificationTasks}},
	})
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// completeAck is the acknowledgement of tasks/update and tasks/cancel.
var completeAck = map[string]string{"resultType": "complete"}

// taskMethod forwards tasks/get, tasks/update or tasks/cancel.
func (b *Backend) taskMethod(ctx context.Context, req *dispatch.ExtensionRequest) (any, error) {
	var p taskParams
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + req.Method + " needs a taskId"}
	}
	var err error
	switch req.Method {
	case mcp.MethodTasksGet:
		var t *mcp.Task
		if t, err = b.client.GetTask(ctx, p.TaskID); err == nil {
			return t, nil
		}
	case mcp.MethodTasksUpdate:
		responses := make(map[string]any, len(p.InputResponses))
		for k, v := range p.InputResponses {
			responses[k] = v
		}
		if err = b.client.UpdateTask(ctx, p.TaskID, responses); err == nil {
			return completeAck, nil
		}
	default:
		if err = b.client.CancelTask(ctx, p.TaskID); err == nil {
			return completeAck, nil
		}
	}
	return nil, b.failure(req.Method, err)
}

// taskToolCall forwards a tools/call that declared the tasks extension,
// declaring it upstream.
func (b *Backend) taskToolCall(ctx context.Context, tc *dispatch.ToolCall) (json.RawMessage, error) {
	if !tc.Declared {
		return nil, nil
	}
	// callOptions declares the tasks extension upstream, and carries the
	// answers of a retry (the input the remote asked before creating
	// its task).
	task, res, err := b.client.StartTool(ctx, tc.Tool, tc.Arguments, callOptions(ctx, tc.Info, dispatch.InputFromContext(ctx))...)
	var ir *client.InputRequiredError
	switch {
	case errors.As(err, &ir):
		return nil, nil // the ordinary call relays the input
	case err != nil:
		return nil, b.failure("tools/call", err)
	case task != nil:
		b.followTask(task.TaskID)
		task.ResultType = mcp.ResultTypeTask
		return json.Marshal(struct {
			*mcp.Task
			Content []json.RawMessage `json:"content"`
		}{task, []json.RawMessage{}})
	}
	body, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	m["resultType"] = json.RawMessage(`"complete"`)
	return json.Marshal(m)
}

// followTask relays the status notifications of a task created through
// the proxy until it ends, the backend closes, or its stream ends.
func (b *Backend) followTask(id string) {
	b.heldMu.Lock()
	if b.closed || b.followed >= b.cfg.limits.MaxFollowedTasks {
		b.heldMu.Unlock()
		b.logger.Warn("proxy: the task's status is not relayed (MaxFollowedTasks); clients poll it", "backend", b.name, "task", id)
		return
	}
	b.followed++
	b.heldWG.Add(1)
	b.heldMu.Unlock()
	sub, err := b.client.ListenTasks(b.life, id)
	go func() {
		defer b.heldWG.Done()
		defer func() {
			b.heldMu.Lock()
			b.followed--
			b.heldMu.Unlock()
		}()
		if err != nil {
			b.logger.Warn("proxy: the task's status cannot be followed", "backend", b.name, "task", id, "error", err)
			return
		}
		defer sub.Close()
		for {
			ev, err := sub.Next(b.life)
			if err != nil {
				return
			}
			if ev.Task == nil || ev.Task.TaskID != id {
				continue
			}
			_, _ = b.hub.Publish(dispatch.Event{Kind: dispatch.EventExtension, Member: mcp.FilterTaskIDs, Key: id,
				Method: mcp.NotificationTasks, Params: withoutMeta(ev.Params)})
			if ev.Task.Status.Terminal() {
				return
			}
		}
	}()
}

// withoutMeta returns a params object without its _meta member (the
// stream adds its own).
func withoutMeta(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	delete(m, "_meta")
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}
