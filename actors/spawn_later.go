package actors

// Request actors started late: a connection or host spawns a request's
// actor only once the request has been in flight for a moment, or when
// its tree is inspected, so a fast call never costs a spawn and a stop.

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// defaultSpawnDelay is how long a request runs before its actor is
// spawned: a request still in flight after it gets its actor at an age
// between one and two delays. Most calls are answered well within it
// and never get one; inspection (Tree, the debug page, an operator's
// action) spawns every pending request's actor first, so the tree it
// shows always holds every request in flight.
const defaultSpawnDelay = 10 * time.Millisecond

// spawnDelay is the system's delay before a request actor is spawned.
func (s *system) spawnDelay() time.Duration {
	if d := s.requestActorDelay; d > 0 {
		return d
	}
	return defaultSpawnDelay
}

// spawnDue is the tick of a parent's spawn timer: the requests admitted
// before the previous tick that are still in flight get their actors.
// One value serves every tick: it carries nothing.
type spawnDue struct{}

func (*spawnDue) IgnoreDeadLetterLogging() {}

var spawnTick = &spawnDue{}

// spawnLater is a parent's pending request actors, in two generations:
// young were admitted since the last tick, aging before it. Each tick
// spawns what is still pending in aging and ages young. It belongs to
// the parent actor's goroutine, but for the timer's callback.
type spawnLater[E any] struct {
	young, aging []E
	timer        *time.Timer
	armed        bool
}

// add records e as pending and arms the timer when it is idle; fire is
// what the timer does (it sends spawnTick to the parent).
func (l *spawnLater[E]) add(e E, delay time.Duration, fire func()) {
	l.young = append(l.young, e)
	l.arm(delay, fire)
}

func (l *spawnLater[E]) arm(delay time.Duration, fire func()) {
	if l.armed {
		return
	}
	l.armed = true
	if l.timer == nil {
		l.timer = time.AfterFunc(delay, fire)
		return
	}
	l.timer.Reset(delay)
}

// tick calls spawn for every aging entry, ages the young ones, and
// re-arms the timer while any is left. spawn decides whether an entry
// is still pending.
func (l *spawnLater[E]) tick(delay time.Duration, fire func(), spawn func(E)) {
	l.armed = false
	for _, e := range l.aging {
		spawn(e)
	}
	clear(l.aging)
	l.aging, l.young = l.young, l.aging[:0]
	if len(l.aging) > 0 {
		l.arm(delay, fire)
	}
}

// stop stops the timer and forgets every entry: the parent is ending.
func (l *spawnLater[E]) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
	l.armed = true // never armed again
	clear(l.young)
	clear(l.aging)
	l.young, l.aging = nil, nil
}

// materializer is implemented by the parents whose request actors start
// late: inspection asks them to spawn every pending one first.
type materializer interface {
	materialize(c actor.Context)
}
