package actors

// Which messages may reach a stopped actor, and why.

import (
	"reflect"

	"github.com/asynkron/protoactor-go/actor"
)

// lateMessages lists every message type that may legitimately reach an
// actor after it stopped, with the reason: a dead letter of one of these
// is expected and dropped, and so is protoactor's Stop to a child its
// parent had already told to stop (stopRequested). A dead letter of any
// other type (protoactor's own Stop otherwise, Watch and Terminated
// included) is a lifecycle bug: it is
// logged and counted (System.UnexpectedDeadLetters), and the tests assert
// the count is zero, so a new message type cannot vanish unnoticed.
//
// Each type here also implements actor.IgnoreDeadLetterLogging, which
// keeps protoactor from logging it, and only these do; a test checks that
// the two agree.
var lateMessages = map[reflect.Type]string{
	// The connection actor (conn.go, conn_session.go).
	reflect.TypeFor[*drainRequests]():  "sent by the reader goroutine or the writer's pump when they log a request's admission or end, which may happen as the connection stops",
	reflect.TypeFor[*cancelRequest]():  "sent by the reader goroutine for a notifications/cancelled it read as the connection stopped",
	reflect.TypeFor[*readerEOF]():      "sent by the reader goroutine when its input ends, which a connection stopped by its supervisor does not wait for",
	reflect.TypeFor[*stopConn]():       "Conn.Stop may be called from any goroutine, also after the connection ended",
	reflect.TypeFor[*notifyFrame]():    "Conn.Notify may be called from any goroutine, also after the connection ended",
	reflect.TypeFor[*flushed]():        "the writer answers a flush its connection may have stopped waiting for (the tree closing)",
	reflect.TypeFor[*writerFailed]():   "the writer reports a failed write while its connection may be stopping for another reason",
	reflect.TypeFor[*sessionWake]():    "the session wakes the connection from the hub's publishing goroutine, whenever an event arrives",
	reflect.TypeFor[*sessionWritten](): "the writer's outcome of a session notification, sent to a connection that may have stopped meanwhile",

	// The writer (writer.go).
	reflect.TypeFor[*writeFrame](): "a frame sent to a writer that may have stopped is not written, and its producer learns it from its own wait",

	// Subscription streams of a connection (subscription.go).
	reflect.TypeFor[*subWake]():              "the source wakes the stream from its publishing goroutine, whenever an event arrives",
	reflect.TypeFor[*subWritten]():           "the writer's outcome of a stream's frame, sent to a stream that may have stopped meanwhile",
	reflect.TypeFor[*completeSubscription](): "end of input asks each open stream to complete; one may be ending already",
	reflect.TypeFor[*openSubscription]():     "sent by the reader goroutine for a subscriptions/listen it admitted as the connection stopped",
	reflect.TypeFor[*subscriptionDone]():     "a stream reports its last frame to a connection that may have stopped meanwhile",

	// Hosts: the HTTP listener and handler (host.go).
	reflect.TypeFor[*startHostRequest](): "transport goroutines begin exchanges while the host may be stopping",
	reflect.TypeFor[*endHostRequest]():   "transport goroutines end exchanges after the host may have stopped",
	reflect.TypeFor[*finishHost]():       "Host.Finish may be called more than once, also after the host stopped",

	// Task runners (tasks.go).
	reflect.TypeFor[*taskStarted]():      "the task engine's goroutines report tasks to a runner that may be stopping",
	reflect.TypeFor[*taskChanged]():      "the task engine's goroutines report status changes to a runner that may have stopped",
	reflect.TypeFor[*taskEnded]():        "the task engine's goroutines report ended tasks to a runner that may have stopped",
	reflect.TypeFor[*taskStatus]():       "the runner tells a task actor its status while the task actor may be stopping",
	reflect.TypeFor[*finishTaskRunner](): "TaskRunner.Finish may be called more than once, also after the runner stopped",

	// Request actors started late (spawn_later.go).
	reflect.TypeFor[*spawnDue](): "a connection's or host's spawn timer may fire as it stops; the stop does not wait for the timer's callback",

	// The tree.
	reflect.TypeFor[*inspect]():       "Tree asks each actor it listed a moment before, and one may have stopped in between",
	reflect.TypeFor[*operate]():       "Act sends to the node an operator saw on the debug page, which may have stopped since",
	reflect.TypeFor[*childFinished](): "a finished actor asks its parent to stop it while the parent may be closing the tree",
	reflect.TypeFor[*closeRoot]():     "the root of a tree started under an application's actor stops by itself when that actor stops, before Close",
	reflect.TypeFor[*spawnChild]():    "the root of a tree started under an application's actor may stop by itself with a spawn queued; the spawner sees rootDone",

	// The application node and call actors (app.go, app_call.go).
	reflect.TypeFor[*spawnApp]():   "Spawn may reach an application node that stopped as the tree closed; Spawn sees the node's done channel",
	reflect.TypeFor[*startCall]():  "a handler may start a call as the tree closes; it sees the node's done channel",
	reflect.TypeFor[*endCall]():    "the handler ends its call after the tree may have stopped the call actor",
	reflect.TypeFor[*cancelCall](): "the handler cancels its call after the tree may have stopped the call actor",
	reflect.TypeFor[*targetGone](): "the application node tells each call of a stopped target, and a call may be stopping meanwhile",
}

// lateMessage reports whether msg may legitimately reach a stopped actor.
func lateMessage(msg any) bool {
	_, ok := lateMessages[reflect.TypeOf(msg)]
	return ok
}

// countDeadLetter is the system's dead-letter subscriber: an unexpected
// dead letter to one of the tree's actors is logged and counted. The
// application's part lists its own late messages (tree.AppHooks.Late).
func (s *system) countDeadLetter(evt any) {
	dl, ok := evt.(*actor.DeadLetterEvent)
	if !ok || !s.ours(dl.PID) || lateMessage(dl.Message) {
		return
	}
	if _, stop := dl.Message.(*actor.Stop); stop {
		if _, told := s.stopping.Load(dl.PID.Id); told {
			return
		}
	}
	if _, ok := s.hooks.Late[reflect.TypeOf(dl.Message)]; ok {
		return
	}
	s.deadLetters.Add(1)
	s.logger.Warn("snodo: message reached a stopped actor", "to", dl.PID.String(), "message", reflect.TypeOf(dl.Message).String())
}

// stopRequested records that a parent told the child id to stop. Until
// the parent handles the child's Terminated (stopHandled), the child is
// still among the parent's children, so a parent that is itself stopped
// in between (the tree closing) sends it a second Stop, which reaches a
// child already gone: that dead letter is expected, any other Stop dead
// letter is not.
func (s *system) stopRequested(id string) { s.stopping.Store(id, struct{}{}) }

// stopHandled forgets id once its parent has handled its Terminated.
func (s *system) stopHandled(id string) { s.stopping.Delete(id) }
