package actors

// The actor system: one per supervision tree, its props, logging and names.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
)

// system is one actor system with its root supervisor, implementing
// tree.System. A server (however many transports it runs) needs exactly
// one: creating one costs about 3 MB and a few milliseconds.
type system struct {
	sys       *actor.ActorSystem
	hosted    bool   // sys is the application's: never shut it down
	rootID    string // "snodo", or "<parent>/snodo" under an application's actor
	root      *actor.PID
	rootDone  chan struct{} // closed once the root has stopped, for whatever reason
	base      context.Context
	hooks     tree.AppHooks // the application part's hooks; hooks.Late extends lateMessages
	logger    *slog.Logger
	exec      *executor.Executor
	strategy  actor.SupervisorStrategy // stop, never restart; shared by every actor
	mailboxes *mailboxPool             // dispatcher of every actor with a mailbox goroutine
	// requestActorDelay overrides defaultSpawnDelay when positive (tests
	// set it before starting a connection or host).
	requestActorDelay time.Duration

	deadLetters atomic.Int64 // dead letters that were not expected
	deadSub     *eventstream.Subscription
	// stopping holds the ids of children their parent told to stop whose
	// Terminated the parent has not handled yet (see stopRequested).
	stopping sync.Map

	mu      sync.Mutex
	closed  bool           // no more children: Close was called, or the root is closing by itself
	closing bool           // Close was called
	names   map[string]any // claimed with Claim

	appMu sync.Mutex
	app   *appNode // started on first use
}

// NewSystem starts an actor system and its root supervisor, with cfg's
// executor shown in its tree.
func NewSystem(cfg tree.SystemConfig) (tree.System, error) { return newSystem(cfg) }

func newSystem(cfg tree.SystemConfig) (*system, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &system{logger: logger, exec: cfg.Executor, strategy: stopStrategy(logger), mailboxes: newMailboxPool(), names: map[string]any{},
		hooks: cfg.App, rootID: "snodo", rootDone: make(chan struct{})}
	s.base = tree.ContextWithSystem(context.Background(), s)
	if cfg.Host != nil {
		s.sys, s.hosted = cfg.Host, true
		if cfg.Parent != nil {
			s.rootID = cfg.Parent.Id + "/snodo"
		}
	} else {
		libLogger := slog.New(infoAsDebug{logger.Handler()}).With("component", "protoactor")
		s.sys = actor.NewActorSystem(
			actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return libLogger }),
			actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
			actor.WithDeadLetterRequestLogging(false),
		)
	}
	s.deadSub = s.sys.EventStream.Subscribe(s.countDeadLetter)
	pid, err := s.sys.Root.SpawnNamed(s.props(func() actor.Actor { return newRootActor(s, cfg.Parent) }, actor.WithGuardian(guardianStrategy)), s.rootID)
	if err != nil {
		s.sys.EventStream.Unsubscribe(s.deadSub)
		s.mailboxes.close()
		if errors.Is(err, actor.ErrNameExists) {
			return nil, fmt.Errorf("actors: a supervision tree named %q already runs in this actor system", s.rootID)
		}
		return nil, fmt.Errorf("actors: starting root supervisor: %w", err)
	}
	s.root = pid
	return s, nil
}

// ours reports whether pid is an actor of this tree. In a system of its
// own every actor is the tree's; in an application's system only those
// under the root are.
func (s *system) ours(pid *actor.PID) bool {
	if !s.hosted {
		return true
	}
	return pid != nil && (pid.Id == s.rootID || strings.HasPrefix(pid.Id, s.rootID+"/"))
}

// Logger returns the system's logger.
func (s *system) Logger() *slog.Logger { return s.logger }

// ActorSystem returns the actor system the tree runs in.
func (s *system) ActorSystem() *actor.ActorSystem { return s.sys }

// Executor returns the executor the tree's requests run on.
func (s *system) Executor() *executor.Executor { return s.exec }

// UnexpectedDeadLetters counts messages that reached a stopped actor and
// were not of a kind listed as one that may legitimately arrive late
// (actors/deadletters.go). Tests assert it is zero: a dead letter there
// is a lifecycle bug goleak cannot see.
func (s *system) UnexpectedDeadLetters() int64 { return s.deadLetters.Load() }

// Claim reserves name for v until the returned release is called.
func (s *system) Claim(name string, v any) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.names[name]; taken {
		return nil, fmt.Errorf("the name %q is taken in this supervision tree", name)
	}
	s.names[name] = v
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.names, name)
			s.mu.Unlock()
		})
	}, nil
}

// Named returns what holds name.
func (s *system) Named(name string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.names[name]
	return v, ok
}

// Close stops the root supervisor and with it every actor, waiting until
// the tree is empty or ctx ends. Work running in the executor is not
// waited for; the executor's owner closes it. In an application's actor
// system only the tree's own actors stop.
func (s *system) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	if !s.closed {
		s.closed = true
		s.send(s.root, &closeRoot{})
	}
	s.mu.Unlock()
	var err error
	select {
	case <-s.rootDone:
	case <-ctx.Done():
		err = fmt.Errorf("actors: supervision tree did not stop: %w", ctx.Err())
	}
	s.sys.EventStream.Unsubscribe(s.deadSub)
	if !s.hosted {
		s.sys.Shutdown()
	}
	s.mailboxes.close()
	return err
}

// markClosed refuses new children from now on: the root is closing
// because the actor it was started under stopped.
func (s *system) markClosed() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// registered returns the number of live actors of ours in the registry
// (the root included). After Close it is zero.
func (s *system) registered() int {
	n := 0
	for _, m := range s.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range m.Keys() {
			if id == s.rootID || strings.HasPrefix(id, s.rootID+"/") {
				n++
			}
		}
	}
	return n
}

// props builds props for one of our actors: panic stacks logged, failing
// children stopped, inspection answered, the mailbox run by the system's
// pool of goroutines.
func (s *system) props(producer actor.Producer, opts ...actor.PropsOption) *actor.Props {
	base := []actor.PropsOption{
		actor.WithReceiverMiddleware(s.panicLogging, inspection),
		actor.WithSupervisor(s.strategy),
		actor.WithDispatcher(s.mailboxes),
	}
	return actor.PropsFromProducer(producer, append(base, opts...)...)
}

// busyProps builds props for one of our actors that gets messages on
// every request (a connection, its writer): as props does, but without
// receiver middleware, which allocates an envelope per message. Such an
// actor answers inspection and logs its panics in its own Receive, as a
// leaf does (leafReceive, logPanic).
func (s *system) busyProps(producer actor.Producer) *actor.Props {
	return actor.PropsFromProducer(producer,
		actor.WithSupervisor(s.strategy),
		actor.WithDispatcher(s.mailboxes),
	)
}

// leafProps builds props for a short-lived actor that only keeps books (a
// request): it runs on the goroutine of whoever sends it a message instead
// of a goroutine of its own. Its Receive never blocks, so running it
// inline costs a function call where the default dispatcher would start a
// goroutine for its Started and again for its Stop: a quarter of the CPU
// of a small tool call. It has no receiver middleware either: each
// message through the middleware chain allocates an envelope, and the
// chain needs a context with extras allocated per actor, so a leaf
// answers inspection and logs its panics in its own Receive (leafReceive).
func (s *system) leafProps(producer actor.Producer) *actor.Props {
	return actor.PropsFromProducer(producer,
		actor.WithSupervisor(s.strategy),
		actor.WithDispatcher(inlineDispatcher),
	)
}

// leafReceive does for a leaf what the middleware of props does for other
// actors: it answers inspection (and operators' actions) and logs a
// panic's stack before supervision sees it. It returns true when the
// message was one of those, which the leaf must not handle itself.
func (s *system) leafReceive(c actor.Context, d describer) bool {
	switch q := c.Message().(type) {
	case *inspect:
		answerInspect(c, d, q)
		return true
	case *operate:
		answerOperate(c, c.Actor(), q)
		return true
	}
	return false
}

// logPanic is deferred by a leaf's Receive: it logs a panic with its
// stack, then re-panics so supervision still runs.
func (s *system) logPanic(c actor.Context) {
	if r := recover(); r != nil {
		s.logger.Error("snodo: actor panicked", "actor", c.Self().Id, "message", fmt.Sprintf("%T", c.Message()),
			"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		panic(r)
	}
}

// requestSpawner starts an actor's request actors from props it builds
// once, rather than once per request (props carry the middleware chain,
// a handful of allocations each time). The props' producer returns the
// actor handed to spawn: protoactor calls the producer inside SpawnPrefix,
// on the spawning actor's goroutine, so the hand-over needs no lock.
// Request actors are never restarted (the strategy stops a failing
// child), so the producer runs once per spawn.
type requestSpawner struct {
	props *actor.Props
	next  actor.Actor
}

func (r *requestSpawner) spawn(s *system, ac actor.Context, a actor.Actor) *actor.PID {
	return r.spawnPrefix(s, ac, a, "req")
}

// spawnPrefix is spawn with another prefix than "req".
func (r *requestSpawner) spawnPrefix(s *system, ac actor.Context, a actor.Actor, prefix string) *actor.PID {
	if r.props == nil {
		r.props = s.leafProps(func() actor.Actor {
			a := r.next
			r.next = nil
			return a
		})
	}
	r.next = a
	return ac.SpawnPrefix(r.props, prefix)
}

// inlineDispatcher processes a mailbox on the sending goroutine.
var inlineDispatcher = actor.NewSynchronizedDispatcher(300)

// guardianStrategy supervises the root itself: one value for every tree,
// so an application's actor system gets one guardian for all the trees
// started in it. The root's panics are logged by its middleware.
var guardianStrategy = actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective })

// stopStrategy stops a failing child and never restarts it: a restart would
// replay nothing useful (the message that failed is dropped) and would
// outlive the state the child's parent keeps about it.
func stopStrategy(logger *slog.Logger) actor.SupervisorStrategy {
	return actor.NewOneForOneStrategy(0, 0, func(reason any) actor.Directive {
		logger.Error("snodo: actor failed; stopping it", "reason", fmt.Sprint(reason))
		return actor.StopDirective
	})
}

// panicLogging logs a panic's stack through our logger, then re-panics so
// supervision still runs.
func (s *system) panicLogging(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		defer func() {
			if r := recover(); r != nil {
				s.logger.Error("snodo: actor panicked", "actor", c.Self().Id, "message", fmt.Sprintf("%T", env.Message),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				panic(r)
			}
		}()
		next(c, env)
	}
}

// send delivers msg from outside any actor.
func (s *system) send(pid *actor.PID, msg any) { s.sys.Root.Send(pid, msg) }

// infoAsDebug lowers the actor library's Info records to Debug, so "actor
// system started" and friends do not reach an application's Info log.
type infoAsDebug struct{ slog.Handler }

func (h infoAsDebug) Enabled(ctx context.Context, l slog.Level) bool {
	if l == slog.LevelInfo {
		l = slog.LevelDebug
	}
	return h.Handler.Enabled(ctx, l)
}

func (h infoAsDebug) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h infoAsDebug) WithAttrs(a []slog.Attr) slog.Handler {
	return infoAsDebug{h.Handler.WithAttrs(a)}
}
func (h infoAsDebug) WithGroup(n string) slog.Handler { return infoAsDebug{h.Handler.WithGroup(n)} }
