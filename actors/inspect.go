package actors

// Tree inspection: each actor describes itself on its own goroutine, and
// the walk goes breadth first from the root.

import (
	"slices"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
)

// describer is implemented by every actor of ours; it runs on the actor's
// own goroutine, so it may read the actor's state.
type describer interface {
	describe() (tree.Kind, map[string]string)
}

// inspect asks an actor to describe itself. It answers on a channel, not a
// future (futures race in this protoactor version).
type inspect struct{ reply chan<- inspected }

func (*inspect) IgnoreDeadLetterLogging() {}

type inspected struct {
	kind     tree.Kind
	attrs    map[string]string
	children []*actor.PID
}

// inspection answers *inspect on the actor's goroutine, reading Children()
// where it is safe to read, and *operate (operate.go).
func inspection(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		ac, _ := c.(actor.Context)
		switch q := env.Message.(type) {
		case *inspect:
			d, _ := c.Actor().(describer)
			answerInspect(ac, d, q)
		case *operate:
			answerOperate(ac, c.Actor(), q)
		default:
			next(c, env)
		}
	}
}

// answerInspect answers q with d's description and c's children; either
// may be nil.
func answerInspect(c actor.Context, d describer, q *inspect) {
	if m, ok := d.(materializer); ok && c != nil {
		m.materialize(c) // requests pending their actor appear too
	}
	var r inspected
	if d != nil {
		r.kind, r.attrs = d.describe()
	}
	if c != nil {
		r.children = slices.Clone(c.Children())
	}
	q.reply <- r
}

// inspectTimeout bounds the wait for one actor's answer.
const inspectTimeout = 200 * time.Millisecond

// Tree returns a snapshot of the live supervision tree. It is safe to call
// from any goroutine. The snapshot is weakly consistent: actors stopping
// while it is taken may or may not appear.
func (s *system) Tree() *tree.Node {
	root := s.inspectNode(s.root)
	if root == nil {
		return &tree.Node{Kind: tree.KindSupervisor, ID: s.rootID}
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if s.exec != nil && !closed {
		root.Children = append(root.Children, executorNode(s.rootID+"/executor", s.exec))
	}
	return root
}

func (s *system) inspectNode(pid *actor.PID) *tree.Node {
	if _, ok := s.sys.ProcessRegistry.GetLocal(pid.Id); !ok {
		return nil
	}
	reply := make(chan inspected, 1)
	s.send(pid, &inspect{reply: reply})
	timer := time.NewTimer(inspectTimeout)
	defer timer.Stop()
	select {
	case r := <-reply:
		n := &tree.Node{Kind: r.kind, ID: pid.Id, Attrs: r.attrs}
		for _, c := range r.children {
			if cn := s.inspectNode(c); cn != nil {
				n.Children = append(n.Children, cn)
			}
		}
		slices.SortFunc(n.Children, func(a, b *tree.Node) int { return compareIDs(a.ID, b.ID) })
		return n
	case <-timer.C:
		if _, ok := s.sys.ProcessRegistry.GetLocal(pid.Id); !ok {
			return nil
		}
		return &tree.Node{Kind: tree.KindUnresponsive, ID: pid.Id}
	}
}

// compareIDs orders ids naturally, so req$9 precedes req$10.
func compareIDs(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			na, oka := numberAt(a, i)
			nb, okb := numberAt(b, i)
			if oka && okb && na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

func numberAt(s string, i int) (int, bool) {
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(s[i:j])
	return n, err == nil
}

func executorNode(id string, e *executor.Executor) *tree.Node {
	st := e.Stats()
	cfg := e.Config()
	return &tree.Node{Kind: tree.KindExecutor, ID: id, Attrs: map[string]string{
		"running":         strconv.Itoa(st.Running),
		"queued":          strconv.Itoa(st.Queued),
		"waiting":         strconv.Itoa(st.Waiting),
		"subscriptions":   strconv.Itoa(st.Subscriptions),
		"max_concurrency": strconv.Itoa(cfg.MaxConcurrency),
		"max_queue":       strconv.Itoa(cfg.MaxQueue),
		// Totals since the executor started: what an operator compares
		// between two looks.
		"submitted": strconv.FormatInt(st.Submitted, 10),
		"rejected":  strconv.FormatInt(st.Rejected, 10),
		"timed_out": strconv.FormatInt(st.TimedOut, 10),
		"cancelled": strconv.FormatInt(st.Cancelled, 10),
	}}
}
