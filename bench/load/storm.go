package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
)

// StormConfig configures a cancellation storm.
type StormConfig struct {
	// Calls is the number of sleep calls cancelled at once (1,000).
	Calls int
	// SleepMs is each call's sleep, far longer than the window, so a call
	// that is not stopped shows as still running.
	SleepMs int64
	// Window bounds the wait for every handler to stop after the cancels.
	Window time.Duration
	// Settle is how long the driver keeps watching after all stopped, for
	// late responses and for calls that start anyway.
	Settle time.Duration
}

// RunStorm starts cfg.Calls sleep calls on t's stdio, waits until the
// server runs as many as it will, cancels every one of them in a single
// write, and measures how long until no handler runs (from the server's
// own counters, read out of band), how many responses arrive for the
// cancelled calls, and how many calls start after their cancel.
func RunStorm(ctx context.Context, t *Target, cfg StormConfig) (Result, error) {
	res := Result{Scenario: "storm", Param: cfg.Calls}
	fail := func(err error) (Result, error) {
		res.Err = err.Error()
		return res, err
	}
	base, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	var (
		mu         sync.Mutex
		cancelSent bool
		early      int64
		earlyErrs  int64
		late       int64
	)
	n := int64(cfg.Calls)
	s := startSession(t, func(f Frame, _ time.Time) {
		if f.ID < 1 || f.ID > n {
			return
		}
		mu.Lock()
		if cancelSent {
			late++
		} else {
			early++
			if f.ErrorCode != 0 || f.IsError {
				earlyErrs++
			}
		}
		mu.Unlock()
	})
	defer s.closeWrites()
	var buf []byte
	for id := int64(1); id <= n; id++ {
		buf = AppendSleep(buf, id, cfg.SleepMs)
		buf = append(buf, '\n')
	}
	s.send(buf)

	if _, err := waitRunning(ctx, t, n, func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return early
	}); err != nil {
		return fail(err)
	}
	loaded, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	res.Started = loaded.Running
	if loaded.Running > 0 {
		res.HeapPerSleepB = (float64(loaded.HeapInuse) - float64(base.HeapInuse)) / float64(loaded.Running)
		res.StackPerSleepB = (float64(loaded.StackInuse) - float64(base.StackInuse)) / float64(loaded.Running)
	}

	// The storm: every cancel in one write.
	buf = nil
	for id := int64(1); id <= n; id++ {
		buf = AppendCancel(buf, id)
		buf = append(buf, '\n')
	}
	before, err := t.Stats(ctx, false)
	if err != nil {
		return fail(err)
	}
	mu.Lock()
	cancelSent = true
	res.Rejected = early
	mu.Unlock()
	t0 := time.Now()
	s.send(buf)

	if err := awaitStormEnd(ctx, t, cfg, t0, before, n, &mu, &late, &earlyErrs, &res); err != nil {
		return fail(err)
	}
	return res, nil
}

// waitRunning waits until the server runs every one of n sleep calls, or
// as many as it will: its running count plus the calls answered already
// (answered) reaches n, or the count holds still for 500 ms. It gives up
// after 15 s.
func waitRunning(ctx context.Context, t *Target, n int64, answered func() int64) (int64, error) {
	last, changed := int64(-1), time.Now()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st, err := t.Stats(ctx, false)
		if err != nil {
			return 0, err
		}
		running := st.Running
		if running != last {
			last, changed = running, time.Now()
		}
		if running+answered() >= n || (running > 0 && time.Since(changed) > 500*time.Millisecond) {
			return running, nil
		}
		if time.Now().After(deadline) {
			return running, fmt.Errorf("load: only %d sleep calls running after 15 s", running)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ListenConfig configures the idle-stream memory measurement.
type ListenConfig struct {
	// Streams is the number of subscriptions/listen requests held open.
	Streams int
	// Timeout bounds the wait for every acknowledgement.
	Timeout time.Duration
}

// RunListen opens cfg.Streams idle subscriptions/listen streams on t's
// stdio, waits for every acknowledgement, and reports the live heap and
// resident memory each stream costs. A server that answers the first
// listen with an error does not support it (ErrUnsupported).
func RunListen(ctx context.Context, t *Target, cfg ListenConfig) (Result, error) {
	res := Result{Scenario: "listen", Param: cfg.Streams}
	fail := func(err error) (Result, error) {
		res.Err = err.Error()
		return res, err
	}
	base, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	var rss0 int64
	if t.PID != 0 {
		_, rss0, _ = ProcMem(t.PID)
	}
	n := int64(cfg.Streams)
	var (
		mu      sync.Mutex
		acks    int64
		errCode int64
		failed  int64
	)
	progress := make(chan struct{}, 1)
	s := startSession(t, func(f Frame, _ time.Time) {
		mu.Lock()
		switch {
		case f.Method == "notifications/subscriptions/acknowledged":
			acks++
		case f.ID >= 1 && f.ID <= n && f.ErrorCode != 0:
			failed++
			if errCode == 0 {
				errCode = f.ErrorCode
			}
		}
		mu.Unlock()
		select {
		case progress <- struct{}{}:
		default:
		}
	})
	defer s.closeWrites()
	// Streams are opened listenBatch at a time, each batch once the
	// previous one is acknowledged, as a client opening many streams
	// would; memory is measured with all of them open.
	const listenBatch = 50
	deadline := time.After(cfg.Timeout)
	for next := int64(1); next <= n; {
		var buf []byte
		end := min(next+listenBatch-1, n)
		for id := next; id <= end; id++ {
			buf = AppendListen(buf, id)
			buf = append(buf, '\n')
		}
		s.send(buf)
		next = end + 1
		for {
			mu.Lock()
			a, e, nf := acks, errCode, failed
			mu.Unlock()
			if e == -32601 {
				res.Unsupported = true
				return res, fmt.Errorf("%w: subscriptions/listen answered with error %d", ErrUnsupported, e)
			}
			if e != 0 {
				return fail(fmt.Errorf("load: %d listen requests failed (first error code %d) after %d acknowledgements", nf, e, a))
			}
			if a >= end {
				break
			}
			select {
			case <-progress:
			case <-deadline:
				return fail(fmt.Errorf("load: %d of %d listen streams acknowledged within %s", a, n, cfg.Timeout))
			case <-ctx.Done():
				return fail(ctx.Err())
			}
		}
	}
	loaded, err := t.Stats(ctx, true)
	if err != nil {
		return fail(err)
	}
	res.Streams = n
	res.HeapPerStreamB = (float64(loaded.HeapInuse) - float64(base.HeapInuse)) / float64(n)
	res.StackPerStreamB = (float64(loaded.StackInuse) - float64(base.StackInuse)) / float64(n)
	res.GoroutinesPerSt = float64(loaded.Goroutines-base.Goroutines) / float64(n)
	if t.PID != 0 {
		var rss1 int64
		res.PeakRSSKiB, rss1, _ = ProcMem(t.PID)
		res.RSSPerStreamB = float64(rss1-rss0) * 1024 / float64(n)
	}
	// End the streams so the server can exit cleanly.
	var buf []byte
	for id := int64(1); id <= n; id++ {
		buf = AppendCancel(buf, id)
		buf = append(buf, '\n')
	}
	s.send(buf)
	return res, nil
}

// IsUnsupported reports whether err says the server lacks the feature.
func IsUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

// awaitStormEnd ends a storm begun at t0 (before is the server's counters
// just before it): it waits, at most cfg.Window from t0, until the server
// runs none of the n calls, watches cfg.Settle longer for late responses
// and calls started although cancelled, and fills res's stop time, late
// responses, errors and peak memory. late and earlyErrs are the reader's
// counts, guarded by mu.
func awaitStormEnd(ctx context.Context, t *Target, cfg StormConfig, t0 time.Time, before benchtool.Stats, n int64,
	mu *sync.Mutex, late, earlyErrs *int64, res *Result) error {
	stopped := false
	for time.Since(t0) < cfg.Window {
		st, err := t.Stats(ctx, false)
		if err != nil {
			return err
		}
		if st.Running == 0 {
			res.StopMs = float64(time.Since(t0)) / float64(time.Millisecond)
			stopped = true
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	settleEnd := time.Now().Add(cfg.Settle)
	for time.Now().Before(settleEnd) {
		mu.Lock()
		all := *late+res.Rejected >= n
		mu.Unlock()
		if all {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	after, err := t.Stats(ctx, false)
	if err != nil {
		return err
	}
	res.StartedAfterCancel = after.Started - before.Started
	res.Stopped = stopped && after.Running == 0 && res.StartedAfterCancel == 0
	mu.Lock()
	res.Late, res.Errors = *late, *earlyErrs
	mu.Unlock()
	if t.PID != 0 {
		res.PeakRSSKiB, _, _ = ProcMem(t.PID)
	}
	return nil
}
