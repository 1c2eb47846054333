package actors

// The root supervisor: it starts the top-level actors and stops each once
// it reports.

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/internal/tree"
)

// rootActor is the supervisor: the parent of every connection and
// listener. Children report when they are finished; the root stops them,
// and closes their done channel on Terminated, the one moment a child is
// really gone.
type rootActor struct {
	s        *system
	parent   *actor.PID // the application's actor the tree was started under, or nil
	children map[string]*child
	closing  bool
}

type child struct {
	done     chan struct{}
	stopping bool // Stop sent: never send it twice
}

func newRootActor(s *system, parent *actor.PID) *rootActor {
	return &rootActor{s: s, parent: parent, children: map[string]*child{}}
}

// spawnChild asks the root to start a top-level actor.
type spawnChild struct {
	props  *actor.Props
	prefix string // the child is <prefix>$<n>, or exactly name when name is set
	name   string
	reply  chan<- spawned
}

// The root may have stopped because the actor it was started under
// stopped; the spawner then learns it from rootDone.
func (*spawnChild) IgnoreDeadLetterLogging() {}

type spawned struct {
	pid  *actor.PID
	done <-chan struct{}
	err  error
}

// childFinished is a child asking its parent to stop it.
type childFinished struct{ pid *actor.PID }

func (*childFinished) IgnoreDeadLetterLogging() {}

// closeRoot stops every child, then the root.
type closeRoot struct{}

// The root may have stopped already because the application's actor it
// was started under stopped.
func (*closeRoot) IgnoreDeadLetterLogging() {}

func (r *rootActor) describe() (tree.Kind, map[string]string) {
	return tree.KindSupervisor, nil
}

func (r *rootActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		if r.parent != nil {
			c.Watch(r.parent)
		}
	case *spawnChild:
		if r.closing {
			m.reply <- spawned{err: tree.ErrSystemClosed}
			return
		}
		var pid *actor.PID
		if m.name != "" {
			var err error
			if pid, err = c.SpawnNamed(m.props, m.name); err != nil {
				m.reply <- spawned{err: err}
				return
			}
		} else {
			pid = c.SpawnPrefix(m.props, m.prefix)
		}
		ch := &child{done: make(chan struct{})}
		r.children[pid.Id] = ch
		m.reply <- spawned{pid: pid, done: ch.done}
	case *childFinished:
		if ch, ok := r.children[m.pid.Id]; ok && !ch.stopping {
			ch.stopping = true
			c.Stop(m.pid)
		}
	case *actor.Terminated:
		if r.parent != nil && m.Who.Id == r.parent.Id {
			// The application stopped the actor the tree runs under:
			// the tree stops with it.
			r.parent = nil
			r.s.markClosed()
			r.close(c)
			return
		}
		if ch, ok := r.children[m.Who.Id]; ok {
			delete(r.children, m.Who.Id)
			close(ch.done)
		}
		r.maybeClosed(c)
	case *closeRoot:
		r.close(c)
	case *actor.Stopping:
		if r.parent != nil {
			c.Unwatch(r.parent)
		}
	case *actor.Stopped:
		close(r.s.rootDone)
	}
}

// close stops every child, then the root once they have all stopped.
func (r *rootActor) close(c actor.Context) {
	if r.closing {
		return
	}
	r.closing = true
	for _, pid := range c.Children() {
		if ch, ok := r.children[pid.Id]; ok && !ch.stopping {
			ch.stopping = true
			c.Stop(pid)
		}
	}
	r.maybeClosed(c)
}

func (r *rootActor) maybeClosed(c actor.Context) {
	if r.closing && len(r.children) == 0 && len(c.Children()) == 0 {
		c.Stop(c.Self())
	}
}

// spawnTop starts a top-level actor under the root and returns its pid and
// a channel closed once it has terminated.
func (s *system) spawnTop(props *actor.Props, prefix string) (*actor.PID, <-chan struct{}, error) {
	return s.spawnUnderRoot(&spawnChild{props: props, prefix: prefix})
}

func (s *system) spawnUnderRoot(m *spawnChild) (*actor.PID, <-chan struct{}, error) {
	reply := make(chan spawned, 1)
	m.reply = reply
	// The send happens under the lock Close takes to send closeRoot, so a
	// spawn is either refused here or queued before the root starts
	// closing. A root that stops because the actor it was started under
	// stopped may drop it: then rootDone ends the wait.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, tree.ErrSystemClosed
	}
	s.send(s.root, m)
	s.mu.Unlock()
	select {
	case r := <-reply:
		return r.pid, r.done, r.err
	case <-s.rootDone:
		return nil, nil, tree.ErrSystemClosed
	}
}
