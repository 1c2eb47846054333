// Package tasks serves the tasks extension of MCP
// (io.modelcontextprotocol/tasks, SEP-2663): a tools/call that will take
// a while answers at once with a task handle (resultType "task"), and the
// client follows the task with tasks/get, answers the input it asks for
// with tasks/update, and may stop it with tasks/cancel. tasks/list and
// tasks/result, which the 2025-11-25 experimental tasks had, do not exist.
//
// A [Runner] holds the tasks of one server: their store
// (taskstore.NewMemory by default; taskstore/boltstore keeps them across
// restarts on one machine), the budget their work runs under (separate
// from ordinary requests'), and which tools may or must run as tasks. It
// is installed in the Runtime with [Runner.Option] and started under the
// server's supervisor with [Runner.Start]:
//
//	runner, _ := tasks.New(tasks.WithTools(tasks.Tool{Name: "render", Support: tasks.Optional}))
//	rt, _ := dispatch.New(impl, runner.Option(), dispatch.WithTool(...))
//	sup, _ := supervisor.New(rt)
//	_ = runner.Start(ctx, rt, sup)
//	defer runner.Close(ctx)
//
// Each task is visible in the supervision tree under the runner, owned by
// no connection or request: a client that goes away leaves its tasks
// running. A task ends with its work, a cancel, its deadline, or the
// runner stopping; only the principal that created it can see or change
// it.
//
// With a subscription source that can publish ([Publisher]: a
// *hub.Hub given with dispatch.WithSubscriptions, or
// backplane.Events), every status change of a task is sent as a
// notifications/tasks to the subscriptions/listen streams that name the
// task in their taskIds filter; a stream may follow only tasks of its own
// principal, and the acknowledgement lists those it follows.
//
// Several instances share tasks through one store that each runs its own
// Runner on (backplane.NewTaskStore). When the store is a
// taskstore.Watcher, a task cancelled or finished through another
// instance stops its handler here; when it is a taskstore.Leaser, the
// Runner holds a lease while it lives, and settles, as after a restart,
// the working tasks of instances whose lease lapsed.
//
// Only 2026-07-28 requests get tasks. On an initialize-era session
// (2025-11-25, 2025-06-18) an Optional tool answers synchronously, a
// Required one is refused with -32021, and tasks/* are -32601: the
// experimental tasks of 2025-11-25 are not served.
//
// The client side is client.Client's StartTool, GetTask, UpdateTask,
// CancelTask, AwaitTask, WaitTask and ListenTasks.
package tasks
