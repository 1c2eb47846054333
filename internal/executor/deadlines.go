package executor

// The executor's deadline queues: one timer per distinct job timeout
// instead of one per job.

import "time"

// maxDeadlineQueues bounds the distinct timeouts that share a queue; a job
// with yet another timeout gets a timer of its own.
const maxDeadlineQueues = 4

// deadlineQueue holds the jobs of one timeout, in submission order, which
// is also deadline order since they share the timeout, to within the gap
// between a submitter reading the clock and locking (Job.Received): a job
// queued behind a later deadline expires with it, that little late. One
// timer is armed for the earliest deadline; a job that ends is unlinked
// without touching the timer, which, when it fires for a job already
// gone, expires what is due and re-arms for the new head. Its fields are
// guarded by e.mu.
type deadlineQueue struct {
	e          *Executor
	head, tail *job
	timer      *time.Timer
	armed      bool // the timer is pending or its fire is running
}

// deadlineQueueLocked returns the queue of timeout, creating it while
// fewer than maxDeadlineQueues exist, or nil. e.mu is held.
func (e *Executor) deadlineQueueLocked(timeout time.Duration) *deadlineQueue {
	if q := e.deadlines[timeout]; q != nil {
		return q
	}
	if len(e.deadlines) >= maxDeadlineQueues { // mutation: executor-bounds-deadline-queues
		return nil
	}
	if e.deadlines == nil {
		e.deadlines = map[time.Duration]*deadlineQueue{}
	}
	q := &deadlineQueue{e: e}
	e.deadlines[timeout] = q
	return q
}

// pushLocked arms j's deadline, timeout from received. e.mu is held.
// Arming the timer, only when the queue was empty, reads the clock.
func (q *deadlineQueue) pushLocked(j *job, received time.Time, timeout time.Duration) {
	j.deadline = received.Add(timeout)
	j.dq, j.dprev, j.dnext = q, q.tail, nil
	if q.tail != nil {
		q.tail.dnext = j
	} else {
		q.head = j
	}
	q.tail = j
	if q.armed {
		return
	}
	q.armed = true
	d := time.Until(j.deadline)
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.fire)
	} else {
		q.timer.Reset(d)
	}
}

// removeLocked unlinks j. e.mu is held.
func (q *deadlineQueue) removeLocked(j *job) {
	if j.dprev != nil {
		j.dprev.dnext = j.dnext
	} else {
		q.head = j.dnext
	}
	if j.dnext != nil {
		j.dnext.dprev = j.dprev
	} else {
		q.tail = j.dprev
	}
	j.dq, j.dprev, j.dnext = nil, nil, nil
}

// fire expires the jobs whose deadline has passed and re-arms the timer
// for the next one.
func (q *deadlineQueue) fire() {
	e := q.e
	var due []*job
	e.mu.Lock()
	now := time.Now()
	for q.head != nil && !q.head.deadline.After(now) { // mutation: deadline-queue-expires-only-due
		j := q.head
		q.removeLocked(j)
		due = append(due, j)
	}
	if q.head != nil {
		q.timer.Reset(q.head.deadline.Sub(now))
	} else {
		q.armed = false
	}
	e.mu.Unlock()
	for _, j := range due {
		j.expire()
	}
}

// stopDeadlinesLocked stops every queue's timer. e.mu is held.
func (e *Executor) stopDeadlinesLocked() {
	for _, q := range e.deadlines {
		if q.timer != nil {
			q.timer.Stop()
		}
		q.armed = false
	}
}
