package stdio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"go.uber.org/goleak"
)

// sent is one request the property test sent.
type sent struct {
	id        string // JSON text of the id
	tag       string
	tool      string
	dup       bool // a duplicate of a request in flight: must be refused
	released  bool
	cancelled bool
	// cancelledFirst: cancelled while it could not have completed (a
	// held call not yet released): it must end without a response.
	cancelledFirst bool
	gate           *testfixture.Gate
}

// holds reports whether the call waits for its gate to be released.
func (s *sent) holds() bool { return s.tool == "probe_hold" || s.tool == "probe_stubborn" }

// stdioScript drives one connection through a random interleaving.
type stdioScript struct {
	t       *testing.T
	rng     *rand.Rand
	srv     *testkit.StdioServer
	sup     *supervisor.Supervisor
	probe   *testfixture.Probe
	sends   []*sent
	byID    map[string][]*sent
	garbage int
	next    int
	eof     bool
	trace   []string // what the script did, printed on failure
}

func (s *stdioScript) logf(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf(format, args...))
}

func (s *stdioScript) send(tool string, id string, dup bool) *sent {
	s.next++
	tag := fmt.Sprintf("t%d", s.next)
	if id == "" {
		id = fmt.Sprintf(`"r%d"`, s.next)
	}
	var rawID any
	if err := json.Unmarshal([]byte(id), &rawID); err != nil {
		s.t.Fatal(err)
	}
	if f, ok := rawID.(float64); ok {
		rawID = int64(f)
	}
	c := &sent{id: id, tag: tag, tool: tool, dup: dup, gate: s.probe.Gate(tag)}
	s.logf("send %s %s %s dup=%t", id, tool, tag, dup)
	s.srv.Send(s.t, testfixture.ProbeCall(rawID, tool, tag, s.rng.IntN(8)))
	s.sends = append(s.sends, c)
	s.byID[id] = append(s.byID[id], c)
	return c
}

// inFlightHolds returns held calls neither released nor cancelled.
func (s *stdioScript) inFlightHolds() []*sent {
	var out []*sent
	for _, c := range s.sends {
		if c.holds() && !c.dup && !c.released && !c.cancelled {
			out = append(out, c)
		}
	}
	return out
}

func (s *stdioScript) pick(cs []*sent) *sent { return cs[s.rng.IntN(len(cs))] }

// cancel cancels the request in flight under c's id, if any: the server
// knows ids, not calls, so every call that used the id may be affected,
// and a held call under it is certainly cancelled before it completes.
func (s *stdioScript) cancel(c *sent) {
	for _, x := range s.byID[c.id] {
		if x.holds() && !x.dup && !x.released && !x.cancelled {
			x.cancelledFirst = true
		}
		x.cancelled = true
	}
	s.logf("cancel %s", c.id)
	s.srv.Send(s.t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(c.id)}))
}

// release lets a held call complete. Its duplicates must be refused
// while it is in flight, so it waits until the server has refused them:
// a line written to the pipe may not have been read yet.
func (s *stdioScript) release(c *sent) {
	s.awaitRefusals(c.id)
	s.logf("release %s %s", c.id, c.tag)
	c.released = true
	c.gate.Release()
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatalf("%s never happened", what)
	}
}

// awaitRefusals waits until every duplicate sent under id has been
// refused.
func (s *stdioScript) awaitRefusals(id string) {
	want := 0
	for _, x := range s.byID[id] {
		if x.dup {
			want++
		}
	}
	if want == 0 {
		return
	}
	seen := map[*testkit.Frame]bool{}
	_, err := s.srv.Client.Await(context.Background(), func(f *testkit.Frame) bool {
		if f.Method == "" && string(f.ID) == id && f.Error != nil && f.Error.Code == -32600 {
			seen[f] = true
		}
		return len(seen) >= want
	})
	if err != nil {
		s.t.Fatalf("%d duplicates of %s were not all refused: %v", want, id, err)
	}
}

// barrier returns once the server has acted on every line sent so far:
// a marker call's response means the reader has handled the lines before
// it and sent what they asked to the connection actor, and a tree
// snapshot is answered by that actor only after the messages ahead of it.
// Releasing a cancelled call before this would race with the
// cancellation still on its way through the pipe.
func (s *stdioScript) barrier() {
	m := s.send("probe_echo", "", false)
	s.srv.Client.AwaitResponse(s.t, m.id)
	s.sup.Tree()
	s.logf("barrier")
}

// step performs one random action.
func (s *stdioScript) step() {
	holds := s.inFlightHolds()
	switch r := s.rng.IntN(100); {
	case r < 22:
		s.send("probe_echo", "", false)
	case r < 34:
		s.send("probe_slow", "", false)
	case r < 40:
		s.send("probe_panic", "", false)
	case r < 46:
		s.send("probe_progress", "", false)
	case r < 56 && len(holds) < 6:
		c := s.send("probe_hold", "", false)
		if s.rng.IntN(2) == 0 {
			waitClosed(s.t, c.gate.Entered, "the hold's start")
			s.logf("entered %s", c.id)
		}
	case r < 60 && len(holds) < 6:
		c := s.send("probe_stubborn", "", false)
		if s.rng.IntN(2) == 0 {
			waitClosed(s.t, c.gate.Entered, "the stubborn call's start")
			s.logf("entered %s", c.id)
		}
	case r < 70 && len(s.sends) > 0:
		// Cancel a held call (no response, ever), or anything: a call
		// that may be running or done (at most one response), or one
		// already cancelled.
		if len(holds) > 0 && s.rng.IntN(2) == 0 {
			s.cancel(s.pick(holds))
		} else {
			s.cancel(s.pick(s.sends))
		}
	case r < 76 && len(holds) > 0:
		// The same id again while the first is in flight: refused.
		s.send("probe_echo", s.pick(holds).id, true)
	case r < 86 && len(holds) > 0:
		s.release(s.pick(holds))
	case r < 89:
		s.garbage++
		s.srv.SendRaw(s.t, []byte(`{"jsonrpc":"2.0","id":`+"\n"))
	case r < 92:
		s.srv.Send(s.t, testkit.Notification("notifications/cancelled", map[string]any{"requestId": "nobody"}))
	case r < 96:
		// Reuse the id of a call whose response has arrived: a new call.
		if c := s.answeredEcho(); c != nil {
			s.send("probe_echo", c.id, false)
		}
	default:
		s.send("probe_echo", fmt.Sprint(s.rng.Int64N(1<<40)), false)
	}
}

// answeredEcho returns an echo call whose one response has been read, or
// nil.
func (s *stdioScript) answeredEcho() *sent {
	frames := s.srv.Client.Frames()
	for _, i := range s.rng.Perm(len(s.sends)) {
		c := s.sends[i]
		if c.tool != "probe_echo" || c.dup || c.cancelled || len(s.byID[c.id]) > 1 {
			continue
		}
		for _, f := range frames {
			if f.Method == "" && string(f.ID) == c.id && testfixture.ProbeText(f) == c.tag {
				return c
			}
		}
	}
	return nil
}

// TestPropertyStdioNothingLost drives a connection through random
// interleavings of calls (fast, slow, panicking, reporting progress,
// held, ignoring cancellation), cancellations, duplicate and reused ids,
// garbage and end of input, and checks that nothing is lost: every
// admitted request ends in exactly one outcome (one response, or none
// when cancelled while it could not have completed), a duplicate in
// flight is refused once, no response is written twice or after its
// cancellation, progress precedes its response, and afterwards the tree
// is empty, the executor idle, no message reached a stopped actor and no
// goroutine is left.
func TestPropertyStdioNothingLost(t *testing.T) {
	testfixture.RunSeeded(t, testfixture.Seeds(t, 6), func(t *testing.T, seed uint64) {
		runStdioProperty(t, seed)
	})
	goleak.VerifyNone(t)
}

func runStdioProperty(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed>>7))
	probe := testfixture.NewProbe()
	rt, err := dispatch.New(mcp.Implementation{Name: "property", Version: "1"},
		append(probe.Options(), dispatch.WithLogger(slog.New(slog.DiscardHandler)))...)
	if err != nil {
		t.Fatal(err)
	}
	sup := quietSupervisor(t, rt)
	t.Cleanup(func() { probe.ReleaseAll() }) // before the server's cleanup, on failure
	srv := testkit.StartStdioWith(t, sup, rt)
	s := &stdioScript{t: t, rng: rng, srv: srv, sup: sup, probe: probe, byID: map[string][]*sent{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("script:\n%s", strings.Join(s.trace, "\n"))
		}
	})

	steps := 30 + rng.IntN(50)
	eofAt := -1
	if rng.IntN(3) == 0 {
		eofAt = steps/2 + rng.IntN(steps/2) // end input with calls in flight
	}
	for i := 0; i < steps; i++ {
		if i == eofAt {
			break
		}
		s.step()
	}
	// Every cancellation must have reached the server before a cancelled
	// call is released below (and after EOF nothing more can be sent).
	s.barrier()
	if eofAt >= 0 {
		s.logf("EOF")
		s.eof = true
		srv.CloseInput()
	}
	// Release what is still held, in a random order (after EOF the
	// transport must still write their responses).
	holds := s.inFlightHolds()
	rng.Shuffle(len(holds), func(i, j int) { holds[i], holds[j] = holds[j], holds[i] })
	for _, c := range holds {
		s.release(c)
	}
	for _, c := range s.sends {
		s.awaitRefusals(c.id) // before releasing cancelled stubborn calls too
	}
	probe.ReleaseAll()
	if !s.eof {
		srv.CloseInput()
	}
	if err := srv.Wait(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	frames := srv.Client.WaitClosed(t)
	probe.WaitReturned(t)
	s.check(frames)
	var held, cancelledHeld, dups, cancels int
	for _, c := range s.sends {
		switch {
		case c.dup:
			dups++
		case c.cancelledFirst:
			cancelledHeld++
		case c.cancelled:
			cancels++
		}
		if c.holds() {
			held++
		}
	}
	t.Logf("%d calls (%d held, %d of them cancelled while held), %d other cancelled, %d duplicates, %d garbage lines, early EOF %t",
		len(s.sends), held, cancelledHeld, cancels, dups, s.garbage, eofAt >= 0)

	// The connection is gone from the tree, the executor is idle, and
	// nothing reached a stopped actor.
	tree := sup.Tree()
	if n := tree.Count("connection") + tree.Count("request") + tree.Count("writer"); n != 0 {
		t.Fatalf("%d connection, writer or request actors left in the tree", n)
	}
	// A handler's slot frees just after it returns.
	testkit.WaitTree(t, sup, func(n *supervisor.Node) bool {
		e := testkit.Find(n, "executor")
		return e != nil && e.Attrs["running"] == "0" && e.Attrs["queued"] == "0"
	})
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("%d unexpected dead letters", n)
	}
}

// check verifies the outcome of every call against the frames written.
func (s *stdioScript) check(frames []*testkit.Frame) {
	t := s.t
	type tally struct {
		results  map[string]int // result text → count
		errors   map[int64]int  // error code → count
		position int            // index of the last response
	}
	byID := map[string]*tally{}
	progress := map[string][]int{} // token → frame positions
	parseErrors := 0
	for i, f := range frames {
		if f.Method != "" {
			if f.Method != "notifications/progress" {
				t.Fatalf("unexpected notification %s", f.Raw)
			}
			var p struct {
				Token string `json:"progressToken"`
			}
			_ = json.Unmarshal(f.Params, &p)
			progress[p.Token] = append(progress[p.Token], i)
			continue
		}
		if f.ID == nil {
			if f.Error == nil || f.Error.Code != -32700 {
				t.Fatalf("an id-less response that is not a parse error: %s", f.Raw)
			}
			parseErrors++
			continue
		}
		tl := byID[string(f.ID)]
		if tl == nil {
			tl = &tally{results: map[string]int{}, errors: map[int64]int{}}
			byID[string(f.ID)] = tl
		}
		tl.position = i
		if f.Error != nil {
			tl.errors[f.Error.Code]++
		} else {
			tl.results[testfixture.ProbeText(f)]++
		}
	}
	if parseErrors != s.garbage {
		t.Errorf("%d parse errors for %d garbage lines", parseErrors, s.garbage)
	}
	for id, calls := range s.byID {
		tl := byID[id]
		if tl == nil {
			tl = &tally{results: map[string]int{}, errors: map[int64]int{}}
		}
		var dups, panics, panicsCancelled int
		for _, c := range calls {
			switch {
			case c.dup:
				dups++
				continue
			case c.tool == "probe_panic":
				if c.cancelled {
					panicsCancelled++
				} else {
					panics++
				}
				continue
			}
			want := c.tag
			if c.holds() {
				want = "released:" + c.tag
			}
			got := tl.results[want]
			delete(tl.results, want)
			switch {
			case c.cancelledFirst && got != 0:
				t.Errorf("%s (%s %s) was cancelled while held, yet answered", id, c.tool, c.tag)
			case c.cancelled && got > 1, !c.cancelled && got != 1:
				t.Errorf("%s (%s %s, cancelled %t): %d responses", id, c.tool, c.tag, c.cancelled, got)
			}
			if c.cancelledFirst {
				select {
				case <-c.gate.Entered:
					// It ran: it must have seen its context end.
					waitClosed(t, c.gate.Cancelled, fmt.Sprintf("%s (%s) seeing its cancellation", id, c.tool))
				default: // cancelled before it started: it never ran
				}
			}
			if c.tool == "probe_progress" {
				n := len(progress[c.tag])
				if (!c.cancelled && n != 2) || n > 2 {
					t.Errorf("%s: %d progress notifications", id, n)
				}
				for _, p := range progress[c.tag] {
					if got == 1 && p > tl.position {
						t.Errorf("%s: progress after its response", id)
					}
				}
			}
		}
		if got := tl.errors[-32600]; got != dups {
			t.Errorf("%s: %d refusals for %d duplicates", id, got, dups)
		}
		if got := tl.errors[-32603]; got < panics || got > panics+panicsCancelled {
			t.Errorf("%s: %d internal errors for %d panics (%d cancelled)", id, got, panics, panicsCancelled)
		}
		delete(tl.errors, -32600)
		delete(tl.errors, -32603)
		if len(tl.results) > 0 || len(tl.errors) > 0 {
			t.Errorf("%s: unexpected responses: results %v errors %v", id, tl.results, tl.errors)
		}
		delete(byID, id)
	}
	for id := range byID {
		t.Errorf("a response for %s, which was never sent", id)
	}
	if t.Failed() {
		var b strings.Builder
		for _, f := range frames {
			b.Write(f.Raw)
			b.WriteByte('\n')
		}
		t.Logf("frames:\n%s", b.String())
	}
}
