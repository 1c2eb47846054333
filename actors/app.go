package actors

// The application node: the parent of the actors an application starts
// through the supervisor and of the calls handlers make to them.

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// appNode is the handle of the application node, implementing
// tree.Application.
type appNode struct {
	s    *system
	pid  *actor.PID
	done <-chan struct{}
}

// Application returns the application node, starting it on first use.
func (s *system) Application() (tree.Application, error) {
	s.appMu.Lock()
	defer s.appMu.Unlock()
	if s.app != nil {
		return s.app, nil
	}
	n := &appNode{s: s}
	pid, done, err := s.spawnUnderRoot(&spawnChild{props: s.props(func() actor.Actor { return newAppActor(s) }), name: "app"})
	if err != nil {
		return nil, err
	}
	n.pid, n.done = pid, done
	s.app = n
	return n, nil
}

// PID is the application node's actor.
func (n *appNode) PID() *actor.PID { return n.pid }

// Spawn starts props under the application node.
func (n *appNode) Spawn(name string, props *actor.Props, restart actor.SupervisorStrategy) (*actor.PID, error) {
	switch {
	case name == "":
		return nil, errors.New("an actor needs a name")
	case strings.ContainsAny(name, "/$"):
		return nil, fmt.Errorf("the actor name %q must not contain '/' or '$'", name)
	case props == nil:
		return nil, errors.New("nil props")
	}
	reply := make(chan spawnedApp, 1)
	n.s.send(n.pid, &spawnApp{name: name, props: props, restart: restart, reply: reply})
	select {
	case r := <-reply:
		return r.pid, r.err
	case <-n.done:
		return nil, tree.ErrSystemClosed
	}
}

// Call starts a call actor for spec.
func (n *appNode) Call(spec tree.CallSpec) (tree.CallHandle, error) {
	reply := make(chan startedCall, 1)
	n.s.send(n.pid, &startCall{spec: spec, reply: reply})
	select {
	case r := <-reply:
		if r.err != nil {
			return nil, r.err
		}
		return &callHandle{s: n.s, pid: r.pid}, nil
	case <-n.done:
		return nil, tree.ErrSystemClosed
	}
}

// Messages of the application node. Spawn and Call wait for their reply
// or for the node to stop, so theirs may reach it stopped.
type (
	spawnApp struct {
		name    string
		props   *actor.Props
		restart actor.SupervisorStrategy
		reply   chan<- spawnedApp
	}
	spawnedApp struct {
		pid *actor.PID
		err error
	}
	startCall struct {
		spec  tree.CallSpec
		reply chan<- startedCall
	}
	startedCall struct {
		pid *actor.PID
		err error
	}
)

func (*spawnApp) IgnoreDeadLetterLogging()  {}
func (*startCall) IgnoreDeadLetterLogging() {}

// appActor is the application node. It keeps the books of its children:
// the application's actors (each with the restart strategy it was given)
// and the call actors, and which calls went to which target, so a target
// that stops ends every call still waiting for it.
type appActor struct {
	s        *system
	kids     map[string]*appKid               // by actor id: actors started with Spawn
	calls    map[string]*callEntry            // by call actor id
	byTarget map[string]map[string]*callEntry // target id → its calls
	watched  map[string]*actor.PID            // targets the application started itself
	stopping bool
	calling  requestSpawner // call actors: leaves on the inline dispatcher
	started  int64          // calls started since the node started
}

type appKid struct {
	pid     *actor.PID
	restart actor.SupervisorStrategy
}

type callEntry struct {
	pid      *actor.PID
	target   string // "" for a per-call target, which the call actor owns
	stopping bool
}

func newAppActor(s *system) *appActor {
	return &appActor{s: s, kids: map[string]*appKid{}, calls: map[string]*callEntry{},
		byTarget: map[string]map[string]*callEntry{}, watched: map[string]*actor.PID{}}
}

func (a *appActor) describe() (tree.Kind, map[string]string) {
	return tree.KindApplication, map[string]string{
		"actors": itoa(len(a.kids)),
		"calls":  itoa(len(a.calls)),
		"total":  itoa(int(a.started)),
	}
}

func (a *appActor) Receive(ac actor.Context) {
	switch m := ac.Message().(type) {
	case *spawnApp:
		if a.stopping {
			m.reply <- spawnedApp{err: tree.ErrSystemClosed}
			return
		}
		pid, err := ac.SpawnNamed(a.s.appProps(m.props), m.name)
		if err != nil {
			if errors.Is(err, actor.ErrNameExists) {
				err = fmt.Errorf("an actor named %q already runs under the application node", m.name)
			}
			m.reply <- spawnedApp{err: err}
			return
		}
		a.kids[pid.Id] = &appKid{pid: pid, restart: m.restart}
		m.reply <- spawnedApp{pid: pid}
	case *startCall:
		pid, err := a.startCall(ac, m.spec)
		m.reply <- startedCall{pid: pid, err: err}
	case *childFinished:
		if e, ok := a.calls[m.pid.Id]; ok && !e.stopping {
			e.stopping = true
			// Recorded like a connection's children: if the tree closes
			// before the call's Terminated arrives, the runtime's second
			// Stop to it is an expected dead letter.
			a.s.stopRequested(m.pid.Id)
			ac.Stop(m.pid)
		}
	case *actor.Terminated:
		a.terminated(ac, m)
	case *actor.Stopping:
		a.stopping = true
		for id, pid := range a.watched {
			delete(a.watched, id)
			ac.Unwatch(pid)
		}
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		if h := a.s.hooks.Receive; h != nil {
			sender := ac.Sender()
			if h(m, func(reply any) {
				if sender != nil {
					a.s.send(sender, reply)
				}
			}) {
				return
			}
		}
		a.s.logger.Warn("snodo: the application node does not handle this message", "message", fmt.Sprintf("%T", m))
	}
}

// startCall resolves spec's target and starts its call actor.
func (a *appActor) startCall(ac actor.Context, spec tree.CallSpec) (*actor.PID, error) {
	if a.stopping {
		return nil, tree.ErrSystemClosed
	}
	target := spec.Target
	switch {
	case spec.Named != "":
		k, ok := a.kids[ac.Self().Id+"/"+spec.Named]
		if !ok {
			return nil, fmt.Errorf("no actor named %q runs under the application node", spec.Named)
		}
		target = k.pid
	case spec.Target != nil:
		if _, ours := a.kids[target.Id]; !ours {
			if _, ok := a.watched[target.Id]; !ok {
				a.watched[target.Id] = target
				ac.Watch(target)
			}
		}
	case spec.Props == nil:
		return nil, errors.New("a call needs a target")
	}
	a.started++
	c := &callActor{s: a.s, spec: spec, target: target, perCall: spec.Props != nil, started: time.Now()}
	pid := a.calling.spawnPrefix(a.s, ac, c, "call")
	e := &callEntry{pid: pid}
	a.calls[pid.Id] = e
	if target != nil {
		e.target = target.Id
		set := a.byTarget[target.Id]
		if set == nil {
			set = map[string]*callEntry{}
			a.byTarget[target.Id] = set
		}
		set[pid.Id] = e
	}
	return pid, nil
}

// terminated keeps the books when a child, or a watched target, stops.
func (a *appActor) terminated(ac actor.Context, m *actor.Terminated) {
	id := m.Who.Id
	if e, ok := a.calls[id]; ok {
		delete(a.calls, id)
		a.s.stopHandled(id)
		if set := a.byTarget[e.target]; set != nil {
			delete(set, id)
			if len(set) == 0 {
				delete(a.byTarget, e.target)
			}
		}
		return
	}
	_, kid := a.kids[id]
	_, watched := a.watched[id]
	if !kid && !watched {
		return
	}
	delete(a.kids, id)
	delete(a.watched, id)
	reason := "the handler actor " + id + " stopped before replying"
	if m.Why == actor.TerminatedReason_NotFound {
		reason = "no actor " + id + " exists in the actor system"
	}
	// Each waiting call hears it through its own mailbox, behind any
	// reply the target sent it before stopping.
	for cid, e := range a.byTarget[id] {
		if !e.stopping {
			ac.Send(e.pid, &targetGone{reason: reason})
		}
		delete(a.byTarget[id], cid)
	}
	delete(a.byTarget, id)
}

// HandleFailure supervises the node's children: an application actor by
// the strategy it was started with (acting on that actor alone), every
// other child (a call actor) is stopped.
func (a *appActor) HandleFailure(sys *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, rs *actor.RestartStatistics, reason, msg any) {
	if k, ok := a.kids[child.Id]; ok && k.restart != nil {
		k.restart.HandleFailure(sys, onlyChild{Supervisor: sup, child: child, s: a.s}, child, rs, reason, msg)
		return
	}
	a.s.logger.Error("snodo: actor failed; stopping it", "actor", child.Id, "reason", fmt.Sprint(reason))
	sup.StopChildren(child)
}

// onlyChild narrows an application actor's supervision to that actor: an
// all-for-one strategy acts on it alone, and escalating a failure stops
// it (the supervision tree does not fail because an application actor
// did).
type onlyChild struct {
	actor.Supervisor
	child *actor.PID
	s     *system
}

func (o onlyChild) Children() []*actor.PID { return []*actor.PID{o.child} }

func (o onlyChild) EscalateFailure(reason, _ any) {
	o.s.logger.Error("snodo: an application actor's failure was escalated; stopping it", "actor", o.child.Id, "reason", fmt.Sprint(reason))
	o.Supervisor.StopChildren(o.child)
}

// appProps returns a copy of an application's props for an actor of the
// application's part of the tree: it answers inspection with what it says
// of itself, logs its panics with their stacks, carries the supervisor's
// guard, and gives the same to every actor it spawns.
func (s *system) appProps(p *actor.Props) *actor.Props {
	mw := []actor.ReceiverMiddleware{s.panicLogging, appInspection}
	if s.hooks.Guard != nil {
		mw = append(mw, s.hooks.Guard())
	}
	return p.Clone(actor.WithReceiverMiddleware(mw...), actor.WithSpawnMiddleware(s.appSpawn))
}

func (s *system) appSpawn(next actor.SpawnFunc) actor.SpawnFunc {
	return func(sys *actor.ActorSystem, id string, props *actor.Props, parent actor.SpawnerContext) (*actor.PID, error) {
		return next(sys, id, s.appProps(props), parent)
	}
}

// appDescriber is what an application actor implements to describe
// itself (supervisor.Describer).
type appDescriber interface {
	Describe() map[string]string
}

// appInspection answers inspection for an application actor, on its own
// goroutine.
func appInspection(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		ac, _ := c.(actor.Context)
		switch q := env.Message.(type) {
		case *inspect:
			answerInspect(ac, appDescription{c.Actor()}, q)
		case *operate:
			// An application actor takes no operator's action.
			q.reply <- tree.ErrNoAction
		default:
			next(c, env)
		}
	}
}

type appDescription struct{ a actor.Actor }

func (d appDescription) describe() (tree.Kind, map[string]string) {
	if ad, ok := d.a.(appDescriber); ok {
		return tree.KindActor, maps.Clone(ad.Describe())
	}
	return tree.KindActor, nil
}
