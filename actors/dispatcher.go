package actors

// The mailbox pool: the goroutines that run the actors' mailboxes.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// mailboxPool is the dispatcher of our actors that process their mailbox
// on a goroutine of their own (the root, connections, writers, hosts,
// subscriptions). protoactor's default dispatcher starts a goroutine each
// time an idle mailbox receives a message, and that goroutine's stack then
// grows through the actor's Receive: on a busy connection the writer and
// the connection actor go idle and wake once per response, and the stack
// copying alone was about 8% of a small tool call's CPU. The pool instead
// hands a mailbox's run to a goroutine parked after an earlier run, whose
// stack has already grown, and starts a goroutine only when none is
// parked.
//
// Mailbox semantics do not change: protoactor still runs one mailbox on at
// most one goroutine at a time; the pool only chooses which goroutine.
// At most maxParked goroutines wait between runs, each for mailboxIdle to
// twice that, and all of them leave when the system closes.
type mailboxPool struct {
	throughput int
	maxParked  int32
	idleFor    time.Duration // mailboxIdle; tests shorten it
	handoff    chan func()
	parked     atomic.Int32
	quit       chan struct{}
	quitOnce   sync.Once
	// exited, when set (by tests), runs as each pool goroutine returns.
	exited func()
}

// mailboxIdle is how long a pool goroutine waits for another mailbox run
// before it exits, at least (at most twice that: see park).
const mailboxIdle = 2 * time.Second

func newMailboxPool() *mailboxPool {
	return &mailboxPool{
		throughput: 300, // protoactor's default
		maxParked:  int32(4 * runtime.GOMAXPROCS(0)),
		idleFor:    mailboxIdle,
		handoff:    make(chan func()),
		quit:       make(chan struct{}),
	}
}

// Schedule implements actor.Dispatcher.
func (p *mailboxPool) Schedule(fn func()) {
	select {
	case p.handoff <- fn:
	default:
		go p.run(fn)
	}
}

// Throughput implements actor.Dispatcher: the messages a mailbox processes
// before yielding the processor.
func (p *mailboxPool) Throughput() int { return p.throughput }

// run runs fn, then parks for further runs while fewer than maxParked
// goroutines wait.
func (p *mailboxPool) run(fn func()) {
	if p.exited != nil {
		defer p.exited()
	}
	// The idle timer is made at the first park and then left running
	// across runs: re-arming and stopping it around every park cost more
	// than the park, and so would reading the clock at each park.
	var idle *time.Timer
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		fn()
		if p.parked.Add(1) > p.maxParked {
			p.parked.Add(-1)
			return
		}
		if idle == nil {
			idle = time.NewTimer(p.idleFor)
		}
		var ok bool
		fn, ok = p.park(idle)
		p.parked.Add(-1)
		if !ok {
			return
		}
	}
}

// park waits for a run handed to the goroutine. It reports false when the
// goroutine should exit: the system closed, or the idle timer fires a
// second time during this park. The first fire may be one from earlier
// runs, or from an arming long before this park: the timer is re-armed
// for a whole idleFor, so a goroutine exits between idleFor and twice
// that after its last run.
func (p *mailboxPool) park(idle *time.Timer) (func(), bool) {
	fired := false
	for {
		select {
		case fn := <-p.handoff:
			return fn, true
		case <-idle.C:
			if fired { // mutation: mailbox-goroutine-exits-only-when-idle
				return nil, false
			}
			fired = true
			idle.Reset(p.idleFor)
		case <-p.quit:
			return nil, false
		}
	}
}

// close makes parked goroutines exit; runs scheduled later still happen,
// each on a goroutine that exits after its run.
func (p *mailboxPool) close() { p.quitOnce.Do(func() { close(p.quit) }) }
