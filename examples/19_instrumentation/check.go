package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/supervisor"
)

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// checks drives the server over HTTP: one slow call holds the only slot,
// a second waits in the queue, a third is refused with 503; then a fast
// call and a failing one. The sink must have seen all of it.
func checks(s *server) error {
	ctx := context.Background()
	url := s.srv.URL()
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], _, _ = excheck.Post(ctx, url, i+1, "tools/call", map[string]any{
				"name": "slow", "_meta": map[string]any{"traceparent": traceparent},
			})
		}()
		// Wait until the call is running (the first) or queued (the
		// second): the tree shows it.
		want := i + 1
		if err := waitFor(s.sup, func(n *supervisor.Node) bool { return n.Count("request") == want }); err != nil {
			return err
		}
	}
	status, _, err := excheck.Post(ctx, url, 3, "tools/call", map[string]any{"name": "slow"})
	if err != nil {
		return err
	}
	if err := excheck.Expect(status == 503, "a third call with one slot and one queue place: status %d, want 503", status); err != nil {
		return err
	}
	close(s.gate)
	wg.Wait()
	if err := excheck.Expect(statuses[0] == 200 && statuses[1] == 200, "slow calls: %v", statuses); err != nil {
		return err
	}
	for id, name := range map[int]string{4: "fast", 5: "fails"} {
		if status, _, err := excheck.Post(ctx, url, id, "tools/call", map[string]any{"name": name}); err != nil || status != 200 {
			return fmt.Errorf("%s: %d %v", name, status, err)
		}
	}

	st := s.stats
	st.mu.Lock()
	defer st.mu.Unlock()
	slow, fast, fails := st.calls["tools/call slow"], st.calls["tools/call fast"], st.calls["tools/call fails"]
	if err := excheck.Expect(slow != nil && slow.count == 2 && slow.outcomes["result"] == 2, "slow calls seen: %+v", slow); err != nil {
		return err
	}
	if err := excheck.Expect(fast != nil && fast.count == 1 && fails != nil && fails.outcomes["tool_error"] == 1, "fast %+v, fails %+v", fast, fails); err != nil {
		return err
	}
	if err := excheck.Expect(st.rejections["overloaded"] == 1 && st.maxDepth == 1 && st.maxWait > 0, "executor: rejections %v, depth %d, wait %v", st.rejections, st.maxDepth, st.maxWait); err != nil {
		return err
	}
	return excheck.Expect(st.traced == 2, "traced calls %d, want 2", st.traced)
}

// waitFor polls the supervision tree until cond holds (5 s at most).
func waitFor(sup *supervisor.Supervisor, cond func(*supervisor.Node) bool) error {
	for range 500 {
		if cond(sup.Tree()) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("the tree never reached the expected state")
}
