// This file installs the Runner in a Runtime: the tasks extension's
// methods, the Mcp-Name header they mirror, and the hook that turns a
// tools/call into a task.

package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/taskstore"
)

// Option returns the dispatch option that installs the tasks extension in
// a Runtime: it is advertised in capabilities.extensions; tasks/get,
// tasks/update and tasks/cancel are served to 2026-07-28 requests that
// declare it (others get -32021), with Mcp-Name mirroring params.taskId
// on HTTP; and tools/call of a declared tool may answer with a task.
// Initialize-era requests never get a task: an Optional tool answers
// them synchronously, a Required one refuses them with -32021.
func (r *Runner) Option() dispatch.Option {
	handler := func(serve func(context.Context, string, json.RawMessage) (any, *jsonrpc.Error)) dispatch.ExtensionHandler {
		return func(ctx context.Context, req *dispatch.ExtensionRequest) (any, error) {
			res, jerr := serve(ctx, principalKey(req.Info.Principal), req.Params)
			if jerr != nil {
				return nil, jerr
			}
			return res, nil
		}
	}
	return dispatch.WithExtension(dispatch.Extension{
		ID:       mcp.ExtensionTasks,
		Versions: []string{mcp.Version20260728},
		Methods: map[string]dispatch.ExtensionHandler{
			mcp.MethodTasksGet:    handler(r.get),
			mcp.MethodTasksUpdate: handler(r.update),
			mcp.MethodTasksCancel: handler(r.cancel),
		},
		NameParams: map[string]string{
			mcp.MethodTasksGet: "taskId", mcp.MethodTasksUpdate: "taskId", mcp.MethodTasksCancel: "taskId",
		},
		ToolCall: r.toolCall,
		Filters:  []dispatch.ExtensionFilter{r.listenFilter()},
	})
}

// Start starts the Runner under sup's tree for the Runtime rt it is
// installed in (see [Runner.Option]): it settles what a previous process
// left unfinished in the store (taskstore.Recover: tasks whose tool is
// Resumable run again, the others that were working fail saying the
// process stopped, those waiting for input keep waiting), then accepts
// tasks. A task run again after a restart sees its principal as the
// string the Runner keeps (see principalKey), not the original value.
// On a store other instances use at the same time (a taskstore.Leaser,
// such as backplane.NewTaskStore), Start first takes the Runner's lease,
// and leaves alone the tasks of runners whose lease is alive; while the
// Runner runs it settles, the same way, those of runners whose lease
// lapsed, and on a taskstore.Watcher it stops the work of a task
// cancelled or finished through another instance.
//
// When the Runtime's subscription source is a [Publisher] (a
// *hub.Hub given with dispatch.WithSubscriptions, or a source that
// fans events out to other instances), each status change of a task is
// published through it as a notifications/tasks, which reaches the
// subscriptions/listen streams whose taskIds name the task; a stream may
// name only tasks of its own principal. Without one, clients poll.
func (r *Runner) Start(ctx context.Context, rt *dispatch.Runtime, sup *supervisor.Supervisor) error {
	pub, _ := rt.SubscriptionSource().(Publisher)
	return r.start(ctx, sup, pub, func(rec *taskstore.Record) (RunFunc, bool) {
		run, err := rt.ResumeToolCall(context.Background(), rec.Params, rec.Principal)
		if err != nil {
			return nil, false
		}
		return adapt(run), true
	})
}

// toolCall decides whether a tools/call runs as a task.
func (r *Runner) toolCall(ctx context.Context, tc *dispatch.ToolCall) (json.RawMessage, error) {
	decl, ok := r.cfg.tools[tc.Tool]
	if !ok || decl.Support == Forbidden {
		return nil, nil
	}
	if !tc.Declared {
		if decl.Support == Required {
			return nil, (&jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapability, Message: fmt.Sprintf("Missing required client capability: tool %s runs only as a task (extension %s, 2026-07-28)", tc.Tool, mcp.ExtensionTasks)}).
				WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}})
		}
		return nil, nil
	}
	principal := principalKey(tc.Info.Principal)
	if !r.cfg.decide(ctx, &Call{Tool: tc.Tool, Arguments: tc.Arguments, HasInput: tc.HasInput, Principal: principal}) {
		return nil, nil
	}
	c := call{principal: principal, method: "tools/call", name: tc.Tool, params: tc.Params, resumable: decl.Resumable, run: adapt(tc.Run)}
	// The final round of a multi round-trip exchange carries the
	// requestState of the round before it: retrying that round (a lost
	// answer) must find the task it created, not start a second one.
	if rs, ok := jsonwire.Member(tc.Params, "requestState"); ok {
		sum := sha256.Sum256(rs)
		c.idempotencyKey = "requestState:" + base64.RawURLEncoding.EncodeToString(sum[:])
	}
	task, jerr := r.begin(ctx, c)
	if jerr != nil {
		return nil, jerr
	}
	return json.Marshal(createResult{Task: task, Content: []json.RawMessage{}})
}

// adapt turns the Runtime's detached run of a tool into a task round.
func adapt(run dispatch.ToolRun) RunFunc {
	return func(ctx context.Context, in *Input) Outcome {
		var ti *dispatch.ToolInput
		if in != nil {
			ti = &dispatch.ToolInput{Responses: in.Responses}
			if len(in.State) > 0 {
				_ = json.Unmarshal(in.State, &ti.State)
			}
		}
		out := run(ctx, ti)
		switch {
		case out.Error != nil:
			b, _ := json.Marshal(out.Error)
			return Outcome{Error: b}
		case out.InputRequests != nil:
			var state json.RawMessage
			if out.State != nil {
				state, _ = json.Marshal(out.State) // bytes, as a base64 JSON string
			}
			return Outcome{InputRequests: out.InputRequests, State: state}
		}
		return Outcome{Result: out.Result}
	}
}

// principalKey is the string a task keeps of the principal that created
// it: the principal itself when it is a string, its String method when it
// has one, "" for none, and otherwise its type and value.
func principalKey(p any) string {
	switch v := p.(type) {
	case nil:
		return ""
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprintf("%T:%v", p, p)
}
