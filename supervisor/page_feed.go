package supervisor

// The coalescer behind the debug page's event streams: one snapshot of
// the tree serves every open stream, a snapshot is taken at most once
// per interval, and only when the executor's counts have moved (a
// request admitted, started or ended, a stream opened or closed) or the
// refresh period has passed, so an open page costs a busy server a
// bounded amount of work whatever its traffic.

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
)

// feed coalesces the snapshots of one debug handler's streams. A stream
// with a search (?q=) has a feed of its own, with the same rules: the
// search runs over the whole snapshot, so it cannot share the bounded
// view of the others.
type feed struct {
	snapshot    func() *Node
	stats       func() executor.Stats // nil: no change signal, refresh only
	now         func() time.Time
	limits      PageLimits
	actions     bool         // offer the actions
	query       string       // a stream's own search ("": the shared feed)
	snapshots   atomic.Int64 // snapshots taken for streams
	bytesSent   atomic.Int64 // event bytes written to streams
	streams     atomic.Int64 // streams open
	mu          sync.Mutex
	taking      chan struct{} // closed when the snapshot being taken is ready; nil when none is
	last        *frame
	lastStats   executor.Stats
	lastStatsOK bool
}

// frame is one encoded view.
type frame struct {
	seq   int64
	taken time.Time
	view  *pageView
	data  []byte
}

// latest returns the newest frame, taking a snapshot first when none has
// been taken for an interval and either the executor's counts moved or a
// refresh is due (or, with fresh, whatever moved: a page being loaded).
// Concurrent callers share one snapshot.
func (f *feed) latest(fresh bool) *frame {
	f.mu.Lock()
	for f.taking != nil {
		ch := f.taking
		f.mu.Unlock()
		<-ch
		f.mu.Lock()
	}
	now := f.now()
	if f.last != nil && now.Sub(f.last.taken) < f.limits.Interval { // mutation: page-snapshots-once-per-interval
		fr := f.last
		f.mu.Unlock()
		return fr
	}
	var st executor.Stats
	if f.stats != nil {
		st = f.stats()
	}
	if !fresh && f.last != nil && f.stats != nil && f.lastStatsOK && st == f.lastStats && now.Sub(f.last.taken) < f.limits.Refresh { // mutation: page-skips-unchanged-tree
		fr := f.last
		f.mu.Unlock()
		return fr
	}
	ch := make(chan struct{})
	f.taking = ch
	seq := int64(1)
	if f.last != nil {
		seq = f.last.seq + 1
	}
	f.mu.Unlock()

	var fr *frame
	defer func() {
		// Even if the snapshot panicked, the callers waiting are let go.
		f.mu.Lock()
		if fr != nil {
			f.last, f.lastStats, f.lastStatsOK = fr, st, f.stats != nil
		}
		f.taking = nil
		close(ch)
		f.mu.Unlock()
	}()
	fr = f.take(seq, now)
	return fr
}

// take snapshots the tree and encodes its bounded view, taken at now.
func (f *feed) take(seq int64, now time.Time) *frame {
	f.snapshots.Add(1)
	v := summarize(f.snapshot(), now, f.limits.MaxChildren, f.limits.MaxNodes, f.query)
	v.Seq = seq
	if f.actions {
		v.offerActions()
	}
	data, err := json.Marshal(v)
	if err != nil { // a view holds strings and numbers only
		panic(err)
	}
	// The interval counts from the end of the snapshot, so a tree that
	// takes long to walk is not walked back to back.
	return &frame{seq: seq, taken: f.now(), view: v, data: data}
}
