// Package taskstore keeps the state of tasks (the tasks extension,
// io.modelcontextprotocol/tasks): what a tool call that outlives its
// request is doing, what it produced, and who may see it.
//
// A [Store] holds one [Record] per task and enforces the rules every task
// runner relies on, whatever the storage behind it:
//
//   - Create is idempotent per principal and idempotency key: the same key
//     returns the task it created, never a second one.
//   - A record's revision grows by one on every write, and Update is a
//     compare-and-set on it, so two runners that read the same revision
//     cannot both write (the second gets [ErrConflict]); this is how a
//     runner takes ownership of a task.
//   - Status only moves forward: working and input_required may follow
//     each other, completed, failed and cancelled are final
//     ([ErrTerminal]), and each status carries exactly its payload (a
//     result when completed, an error when failed, input requests when
//     waiting for input).
//   - Every JSON value a record holds is bounded ([Options.MaxValueBytes];
//     [ErrTooLarge]).
//   - A record lives until its TTL, counted from creation, has passed; then
//     it reads as [ErrExpired] until [Store.Expire] removes it.
//   - [Store.Unfinished] lists what a restarted process must recover, and
//     [Recover] settles it: each task that was running is resumed if its
//     tool can resume, or marked failed with a reason that says the process
//     stopped.
//   - A store that several live processes share may be a [Watcher] (its
//     records' changes reach every process) and a [Leaser] (each runner
//     holds a lease while it lives; Recover settles only the tasks of
//     runners whose lease lapsed).
//
// [NewMemory] is the in-memory store (the default); the boltstore
// subpackage keeps tasks in a file on one machine. The storetest
// subpackage is the contract suite every store must pass.
package taskstore
