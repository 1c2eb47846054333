package load

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// BigLineConfig configures the oversized-line measurement.
type BigLineConfig struct {
	// MiB is the length of the one line, in MiB (1,024 for 1 GiB).
	MiB int
	// Timeout bounds the whole exchange.
	Timeout time.Duration
}

// RunBigLine writes one tools/call line of cfg.MiB MiB, then an ordinary
// echo call, and reports whether the big line was refused with an error,
// whether the next request was answered, and the server's peak RSS: the
// measure of how much of an oversized line a server holds in memory.
func RunBigLine(ctx context.Context, t *Target, cfg BigLineConfig) (Result, error) {
	res := Result{Scenario: "bigline", Param: cfg.MiB}
	var (
		mu       sync.Mutex
		refused  bool
		answered bool
		errs     int64
	)
	got := make(chan struct{}, 1)
	s := startSession(t, func(f Frame, _ time.Time) {
		mu.Lock()
		switch {
		case f.ID == 2:
			answered = true
			if f.ErrorCode != 0 || f.IsError {
				errs++ // the ordinary request must be served
			}
		case f.ID < 0 && f.ErrorCode != 0, f.ID == 1 && f.ErrorCode != 0:
			refused = true
		}
		mu.Unlock()
		if f.ID == 2 {
			select {
			case got <- struct{}{}:
			default:
			}
		}
	})
	defer s.closeWrites()
	s.send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range cfg.MiB {
		s.send(chunk) // the writer goroutine owns the pipe; chunk is never changed
	}
	s.send([]byte("\"}," + meta + "}}\n"))
	s.send(append(AppendEcho(nil, 2, "after"), '\n'))
	start := time.Now()
	select {
	case <-got:
	case <-s.readerDone():
		// The server ended the connection (or exited) instead of
		// answering: a behaviour to report, not a failed measurement.
		res.ConnectionEnded = true
	case <-time.After(cfg.Timeout):
		// Still busy with the big line (or stuck): also a behaviour.
		res.NoAnswer = true
	case <-ctx.Done():
		res.Err = ctx.Err().Error()
	}
	res.Seconds = time.Since(start).Seconds()
	mu.Lock()
	res.OversizeRefused, res.NextAnswered, res.Errors = refused, answered, errs
	mu.Unlock()
	if t.PID != 0 {
		res.PeakRSSKiB, _, _ = ProcMem(t.PID)
	}
	return res, nil
}
