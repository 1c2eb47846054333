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
	children map[string]*child
	closing  *closeRoot
}

type child struct {
	done     chan struct{}
	stopping bool // Stop sent: never send it twice
}

func newRootActor(s *system) *rootActor {
	return &rootActor{s: s, children: map[string]*child{}}
}

// spawnChild asks the root to start a top-level actor.
type spawnChild struct {
	props  *actor.Props
	prefix string
	reply  chan<- spawned
}

type spawned struct {
	pid  *actor.PID
	done <-chan struct{}
	err  error
}

// childFinished is a child asking its parent to stop it.
type childFinished struct{ pid *actor.PID }

func (*childFinished) IgnoreDeadLetterLogging() {}

// closeRoot stops every child, then the root.
type closeRoot struct{ done chan struct{} }

func (r *rootActor) describe() (tree.Kind, map[string]string) {
	return tree.KindSupervisor, nil
}

func (r *rootActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *spawnChild:
		if r.closing != nil {
			m.reply <- spawned{err: tree.ErrSystemClosed}
			return
		}
		pid := c.SpawnPrefix(m.props, m.prefix)
		ch := &child{done: make(chan struct{})}
		r.children[pid.Id] = ch
		m.reply <- spawned{pid: pid, done: ch.done}
	case *childFinished:
		if ch, ok := r.children[m.pid.Id]; ok && !ch.stopping {
			ch.stopping = true
			c.Stop(m.pid)
		}
	case *actor.Terminated:
		if ch, ok := r.children[m.Who.Id]; ok {
			delete(r.children, m.Who.Id)
			close(ch.done)
		}
		r.maybeClosed(c)
	case *closeRoot:
		if r.closing != nil {
			close(m.done)
			return
		}
		r.closing = m
		for _, pid := range c.Children() {
			if ch, ok := r.children[pid.Id]; ok && !ch.stopping {
				ch.stopping = true
				c.Stop(pid)
			}
		}
		r.maybeClosed(c)
	case *actor.Stopped:
		if r.closing != nil {
			close(r.closing.done)
		}
	}
}

func (r *rootActor) maybeClosed(c actor.Context) {
	if r.closing != nil && len(r.children) == 0 && len(c.Children()) == 0 {
		c.Stop(c.Self())
	}
}

// spawnTop starts a top-level actor under the root and returns its pid and
// a channel closed once it has terminated.
func (s *system) spawnTop(props *actor.Props, prefix string) (*actor.PID, <-chan struct{}, error) {
	reply := make(chan spawned, 1)
	// The send happens under the lock Close takes to send closeRoot, so a
	// spawn is either refused here or queued before the root starts
	// closing; it can never reach a root that has already stopped.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, tree.ErrSystemClosed
	}
	s.send(s.root, &spawnChild{props: props, prefix: prefix, reply: reply})
	s.mu.Unlock()
	r := <-reply
	return r.pid, r.done, r.err
}
