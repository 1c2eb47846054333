package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// StdioLoad configures a pipelined stdio run.
type StdioLoad struct {
	// Concurrency is C, the requests kept in flight.
	Concurrency int
	// Warmup runs before the measured window; Duration is the window.
	Warmup, Duration time.Duration
	// Text is the echo text (DefaultEchoText when empty).
	Text string
	// Drain bounds the wait for outstanding responses after the window.
	Drain time.Duration
	// MinRequests keeps the window open past Duration until this many
	// requests completed in it (at most 30 s more): a smoke test on a busy
	// machine then measures something instead of nothing.
	MinRequests int64
}

// lineReader returns a reader of newline-delimited frames.
func lineReader(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256<<10), 8<<20)
	return sc
}

// RunStdio keeps cfg.Concurrency echo calls in flight on t's stdio for
// the warm-up and the window, and reports what completed in the window.
// The writer coalesces every free slot into one write, so the driver
// spends little CPU (it shares the machine with the server).
func RunStdio(ctx context.Context, t *Target, cfg StdioLoad) (Result, error) {
	res := Result{Scenario: "stdio", Param: cfg.Concurrency}
	if cfg.Text == "" {
		cfg.Text = DefaultEchoText
	}
	if cfg.Drain == 0 {
		cfg.Drain = 10 * time.Second
	}
	tokens := make(chan struct{}, cfg.Concurrency)
	for range cfg.Concurrency {
		tokens <- struct{}{}
	}
	var (
		mu          sync.Mutex
		sent        = make(map[int64]time.Time, cfg.Concurrency)
		windowStart time.Time
		windowEnd   time.Time
		inWindow    bool
		lat         = make([]time.Duration, 0, 1<<16)
		count, errs int64
		unmatched   int64
		firstOdd    string
		lastResp    time.Time
		maxGap      time.Duration
	)
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		var buf []byte
		var id int64
		for {
			select {
			case <-stop:
				writerDone <- nil
				return
			case <-tokens:
			}
			n := 1
		more:
			for {
				select {
				case <-tokens:
					n++
				default:
					break more
				}
			}
			buf = buf[:0]
			now := time.Now()
			mu.Lock()
			for range n {
				id++
				sent[id] = now
				buf = AppendEcho(buf, id, cfg.Text)
				buf = append(buf, '\n')
			}
			mu.Unlock()
			if _, err := t.Stdin.Write(buf); err != nil {
				writerDone <- err
				return
			}
		}
	}()
	readerDone := make(chan error, 1)
	drained := make(chan struct{})
	var stopping bool
	go func() {
		sc := lineReader(t.Stdout)
		for sc.Scan() {
			f, err := ParseFrame(sc.Bytes())
			if err != nil {
				readerDone <- fmt.Errorf("load: unparsable frame: %w", err)
				return
			}
			now := time.Now()
			mu.Lock()
			at, ok := sent[f.ID]
			if !ok {
				unmatched++
				if firstOdd == "" {
					firstOdd = string(sc.Bytes())
				}
			}
			if ok {
				delete(sent, f.ID)
				if f.ErrorCode != 0 || f.IsError {
					errs++ // in the warm-up and the drain too
				}
				if inWindow {
					count++
					if gap := now.Sub(lastResp); gap > maxGap {
						maxGap = gap
					}
					lastResp = now
					lat = append(lat, now.Sub(at))
				}
			}
			done := stopping && len(sent) == 0
			mu.Unlock()
			if done {
				close(drained)
				readerDone <- nil
				return
			}
			if ok {
				tokens <- struct{}{}
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		readerDone <- err
	}()

	fail := func(err error) (Result, error) {
		close(stop)
		res.Err = err.Error()
		return res, err
	}
	select {
	case <-time.After(cfg.Warmup):
	case err := <-readerDone:
		return fail(err)
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	cpu0, _ := cpuOf(t)
	lagDone := make(chan time.Duration, 1)
	go func() { lagDone <- driverLag(stop) }()
	mu.Lock()
	inWindow, windowStart = true, time.Now()
	lastResp = windowStart
	mu.Unlock()
	select {
	case <-time.After(cfg.Duration):
	case err := <-readerDone:
		return fail(err)
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	for extra := time.Now().Add(30 * time.Second); cfg.MinRequests > 0; {
		mu.Lock()
		enough := count >= cfg.MinRequests
		mu.Unlock()
		if enough {
			break
		}
		if time.Now().After(extra) {
			return fail(fmt.Errorf("load: fewer than %d requests completed in %s", cfg.MinRequests, time.Since(windowStart).Round(time.Millisecond)))
		}
		select {
		case err := <-readerDone:
			return fail(err)
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	mu.Lock()
	inWindow, windowEnd = false, time.Now()
	n := count
	if gap := windowEnd.Sub(lastResp); gap > maxGap {
		maxGap = gap
	}
	res.MaxGapUs = float64(maxGap) / float64(time.Microsecond)
	mu.Unlock()
	cpu1, cpuErr := cpuOf(t)
	close(stop)
	res.DriverLagUs = float64(<-lagDone) / float64(time.Microsecond)
	if err := <-writerDone; err != nil {
		res.Err = err.Error()
		return res, err
	}
	mu.Lock()
	stopping = true
	empty := len(sent) == 0
	mu.Unlock()
	if !empty {
		select {
		case <-drained:
		case err := <-readerDone:
			if err != nil {
				return fail(err)
			}
		case <-time.After(cfg.Drain):
			mu.Lock()
			err := fmt.Errorf("load: %d responses did not arrive within %s; %d frames matched no request (first: %.300s)", len(sent), cfg.Drain, unmatched, firstOdd)
			mu.Unlock()
			res.Err = err.Error()
			return res, err
		}
	}
	secs := windowEnd.Sub(windowStart).Seconds()
	mu.Lock()
	res.Errors = errs
	mu.Unlock()
	res.Requests, res.Seconds = n, secs
	res.Throughput = float64(n) / secs
	latencyStats(&res, lat)
	if cpuErr == nil && t.PID != 0 && n > 0 {
		res.CPUPerReq = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(n)
	}
	return res, nil
}

func cpuOf(t *Target) (time.Duration, error) {
	if t.PID == 0 {
		return 0, errors.New("load: no process")
	}
	return ProcCPU(t.PID)
}

// lagTick is how often driverLag wakes.
const lagTick = 5 * time.Millisecond

// driverLag wakes every lagTick until stop closes and returns the longest
// it overslept: how long the driver itself could not run.
func driverLag(stop <-chan struct{}) time.Duration {
	var worst time.Duration
	t := time.NewTicker(lagTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return worst
		case <-t.C:
			now := time.Now()
			if lag := now.Sub(last) - lagTick; lag > worst {
				worst = lag
			}
			last = now
		}
	}
}
