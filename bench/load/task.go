package load

// A task created and completed: the tools/call echo run as a task
// (the tasks extension), followed to its end with tasks/get, under load.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// TaskLoad configures a task run.
type TaskLoad struct {
	// Concurrency is C, the tasks followed at once, each by its own
	// client loop.
	Concurrency int
	// Warmup runs before the measured window; Duration is the window.
	Warmup, Duration time.Duration
	// MinTasks keeps the window open past Duration until this many tasks
	// completed in it (at most 30 s more), as StdioLoad.MinRequests.
	MinTasks int64
}

// RunTask keeps cfg.Concurrency client loops on t's stdio, each creating
// a task (a tools/call echo that declares the tasks extension) and
// sending tasks/get, each as soon as the previous answer said the task
// still works, until it is completed; then the next. It reports the
// tasks completed in the window per second, their latency from the
// tools/call to the tasks/get that saw them completed, the server's CPU
// per task (every request of it included) and the tasks/get per task. A
// server that answers the call without a task (it does not run echo as
// one) does not support the scenario (ErrUnsupported).
func RunTask(ctx context.Context, t *Target, cfg TaskLoad) (Result, error) {
	res := Result{Scenario: "task", Param: cfg.Concurrency}
	fail := func(err error) (Result, error) {
		res.Err = err.Error()
		return res, err
	}
	var (
		mu      sync.Mutex
		waiting = map[int64]chan Frame{}
	)
	s := startSession(t, func(f Frame, _ time.Time) {
		mu.Lock()
		ch, ok := waiting[f.ID]
		delete(waiting, f.ID)
		mu.Unlock()
		if ok {
			ch <- f
		}
	})
	defer s.closeWrites()
	readerGone := make(chan struct{})
	var readerErr error
	go func() {
		readerErr = <-s.readerDone()
		if readerErr == nil {
			readerErr = errors.New("load: the server ended its output")
		}
		close(readerGone)
	}()
	var ids atomic.Int64
	call := func(build func(id int64) []byte) (Frame, error) {
		id := ids.Add(1)
		ch := make(chan Frame, 1)
		mu.Lock()
		waiting[id] = ch
		mu.Unlock()
		s.send(append(build(id), '\n'))
		select {
		case f := <-ch:
			return f, nil
		case <-readerGone:
			return Frame{}, readerErr
		case <-time.After(30 * time.Second):
			return Frame{}, fmt.Errorf("load: no answer to request %d within 30 s", id)
		}
	}

	var (
		inWindow    atomic.Bool
		stop        atomic.Bool
		count, errs atomic.Int64
		gets        atomic.Int64
		latMu       sync.Mutex
		lat         = make([]time.Duration, 0, 1<<12)
		firstErr    error
		unsupported atomic.Bool
		wg          sync.WaitGroup
	)
	setErr := func(err error) {
		latMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		latMu.Unlock()
	}
	for range cfg.Concurrency {
		wg.Go(func() {
			for !stop.Load() {
				start := time.Now()
				f, err := call(func(id int64) []byte { return AppendTaskEcho(nil, id, DefaultEchoText) })
				if err != nil {
					setErr(err)
					return
				}
				if f.ErrorCode != 0 || f.IsError {
					errs.Add(1)
					continue
				}
				if f.TaskID == "" {
					unsupported.Store(true)
					return
				}
				status, n := f.TaskStatus, int64(0)
				for status == "working" {
					g, err := call(func(id int64) []byte { return AppendTaskGet(nil, id, f.TaskID) })
					if err != nil {
						setErr(err)
						return
					}
					n++
					if g.ErrorCode != 0 {
						break
					}
					status = g.TaskStatus
				}
				if status != "completed" {
					errs.Add(1)
					continue
				}
				if inWindow.Load() {
					el := time.Since(start)
					count.Add(1)
					gets.Add(n)
					latMu.Lock()
					lat = append(lat, el)
					latMu.Unlock()
				}
			}
		})
	}
	finish := func() {
		stop.Store(true)
		wg.Wait()
	}
	check := func() error {
		if unsupported.Load() {
			return fmt.Errorf("%w: echo answered without a task", ErrUnsupported)
		}
		latMu.Lock()
		defer latMu.Unlock()
		return firstErr
	}
	select {
	case <-time.After(cfg.Warmup):
	case <-ctx.Done():
		finish()
		return fail(ctx.Err())
	}
	if err := check(); err != nil {
		finish()
		if IsUnsupported(err) {
			res.Unsupported = true
			return res, err
		}
		return fail(err)
	}
	cpu0, _ := cpuOf(t)
	inWindow.Store(true)
	start := time.Now()
	time.Sleep(cfg.Duration)
	for extra := time.Now().Add(30 * time.Second); count.Load() < cfg.MinTasks && time.Now().Before(extra) && check() == nil; {
		time.Sleep(10 * time.Millisecond)
	}
	inWindow.Store(false)
	secs := time.Since(start).Seconds()
	cpu1, cpuErr := cpuOf(t)
	finish()
	if err := check(); err != nil {
		if IsUnsupported(err) {
			res.Unsupported = true
			return res, err
		}
		return fail(err)
	}
	n := count.Load()
	if n == 0 || n < cfg.MinTasks {
		return fail(fmt.Errorf("load: %d tasks completed in the window", n))
	}
	res.Requests, res.Errors, res.Seconds = n, errs.Load(), secs
	res.Throughput = float64(n) / secs
	res.GetsPerTask = float64(gets.Load()) / float64(n)
	latencyStats(&res, lat)
	if cpuErr == nil && t.PID != 0 {
		res.CPUPerReq = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(n)
	}
	return res, nil
}
