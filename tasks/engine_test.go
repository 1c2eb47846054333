package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// events records what the engine tells its observer, so tests wait for a
// task to end instead of sleeping.
type events struct {
	mu      sync.Mutex
	endedCh map[string]chan struct{}
	changes map[string][]taskstore.Status
	starts  map[string]int
	live    int
	tick    chan struct{} // closed and replaced on every event
}

func newEvents() *events {
	return &events{endedCh: map[string]chan struct{}{}, changes: map[string][]taskstore.Status{}, starts: map[string]int{}, tick: make(chan struct{})}
}

// next returns a channel closed at the next event.
func (ev *events) next() chan struct{} {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.tick
}

// signal wakes everyone waiting for an event; ev.mu is held.
func (ev *events) signal() {
	close(ev.tick)
	ev.tick = make(chan struct{})
}

func (ev *events) ch(id string) chan struct{} {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	c, ok := ev.endedCh[id]
	if !ok {
		c = make(chan struct{})
		ev.endedCh[id] = c
	}
	return c
}

func (ev *events) started(r *taskstore.Record) {
	ev.mu.Lock()
	ev.starts[r.ID]++
	ev.live++
	ev.signal()
	ev.mu.Unlock()
}

func (ev *events) changed(r *taskstore.Record, _ taskstore.Status) {
	ev.mu.Lock()
	ev.changes[r.ID] = append(ev.changes[r.ID], r.Status)
	ev.signal()
	ev.mu.Unlock()
}

func (ev *events) ended(id string) {
	c := ev.ch(id)
	ev.mu.Lock()
	ev.live--
	ev.signal()
	ev.mu.Unlock()
	close(c)
}

func (ev *events) waitEnded(t *testing.T, id string) {
	t.Helper()
	select {
	case <-ev.ch(id):
	case <-time.After(10 * time.Second):
		t.Fatalf("task %s did not end within 10s", id)
	}
}

type harness struct {
	e     *engine
	ev    *events
	store taskstore.Store
	runs  map[string]RunFunc // by tool name, for resolve
}

func newHarness(t testing.TB, store taskstore.Store, mod func(*engineConfig)) *harness {
	t.Helper()
	return newHarnessWith(t, &harness{ev: newEvents(), store: store, runs: map[string]RunFunc{}}, mod)
}

func newHarnessWith(t testing.TB, h *harness, mod func(*engineConfig)) *harness {
	t.Helper()
	store := h.store
	cfg := engineConfig{
		store: store, owner: "test-" + taskstore.NewID(), ttl: time.Hour, pollInterval: 100 * time.Millisecond,
		timeout: time.Minute, maxTasks: 64, maxRunning: 8, sweepInterval: time.Hour, now: time.Now,
		logger: slog.New(slog.NewTextHandler(io.Discard, nil)), observe: h.ev,
		resolve: func(r *taskstore.Record) (RunFunc, bool) { f, ok := h.runs[r.Name]; return f, ok },
	}
	if mod != nil {
		mod(&cfg)
	}
	h.e = newEngine(cfg)
	if err := h.e.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.e.close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return h
}

var bg = context.Background()

func (h *harness) create(t *testing.T, name string, run RunFunc) taskstore.Record {
	t.Helper()
	rec, err := h.e.create(bg, call{principal: "alice", method: "tools/call", name: name, params: json.RawMessage(`{"name":"` + name + `"}`), run: run})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if rec.Status != taskstore.StatusWorking || rec.Revision != 1 {
		t.Fatalf("created %s at revision %d", rec.Status, rec.Revision)
	}
	return rec
}

func (h *harness) get(t *testing.T, id string) taskstore.Record {
	t.Helper()
	r, err := h.e.get(bg, "alice", id)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return r
}

func result(text string) Outcome {
	return Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"` + text + `"}]}`)}
}

func TestTaskCompletes(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	rec := h.create(t, "quick", func(context.Context, *Input) Outcome { return result("done") })
	h.ev.waitEnded(t, rec.ID)
	got := h.get(t, rec.ID)
	if got.Status != taskstore.StatusCompleted || !strings.Contains(string(got.Result), "done") || got.Owner != "" {
		t.Fatalf("%s %s owner %q", got.Status, got.Result, got.Owner)
	}
}

func TestTaskErrorAndPanicFail(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	a := h.create(t, "err", func(context.Context, *Input) Outcome {
		return Outcome{Error: json.RawMessage(`{"code":-32602,"message":"bad"}`)}
	})
	b := h.create(t, "boom", func(context.Context, *Input) Outcome { panic("boom") })
	h.ev.waitEnded(t, a.ID)
	h.ev.waitEnded(t, b.ID)
	if r := h.get(t, a.ID); r.Status != taskstore.StatusFailed || string(r.Error) != `{"code":-32602,"message":"bad"}` || r.Result != nil {
		t.Fatalf("error outcome: %s %s", r.Status, r.Error)
	}
	if r := h.get(t, b.ID); r.Status != taskstore.StatusFailed || !strings.Contains(string(r.Error), "-32603") {
		t.Fatalf("panic: %s %s", r.Status, r.Error)
	}
}

func TestInputRoundsAndPartialAnswers(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	var got *Input
	rec := h.create(t, "ask", func(_ context.Context, in *Input) Outcome {
		if in == nil {
			return Outcome{InputRequests: map[string]json.RawMessage{
				"a": json.RawMessage(`{"method":"elicitation/create","params":{"message":"A?"}}`),
				"b": json.RawMessage(`{"method":"elicitation/create","params":{"message":"B?"}}`),
			}, State: json.RawMessage(`"s1"`)}
		}
		got = in
		return result("answered")
	})
	waitStatus(t, h, rec.ID, taskstore.StatusInputRequired)
	r := h.get(t, rec.ID)
	var pending map[string]json.RawMessage
	if err := json.Unmarshal(r.InputRequests, &pending); err != nil || len(pending) != 2 || pending["1.a"] == nil || pending["1.b"] == nil {
		t.Fatalf("input requests %s", r.InputRequests)
	}
	if err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.a": json.RawMessage(`{"action":"accept"}`), "nope": json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	r = h.get(t, rec.ID)
	if r.Status != taskstore.StatusInputRequired || strings.Contains(string(r.InputRequests), "1.a") || !strings.Contains(string(r.InputRequests), "1.b") {
		t.Fatalf("after a partial answer: %s %s", r.Status, r.InputRequests)
	}
	rev := r.Revision
	if err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.a": json.RawMessage(`{"action":"decline"}`)}); err != nil {
		t.Fatal(err)
	}
	if h.get(t, rec.ID).Revision != rev {
		t.Fatal("an answer to a request already answered changed the task")
	}
	if err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.b": json.RawMessage(`{"action":"accept","content":{"x":1}}`)}); err != nil {
		t.Fatal(err)
	}
	h.ev.waitEnded(t, rec.ID)
	if h.get(t, rec.ID).Status != taskstore.StatusCompleted {
		t.Fatal("not completed")
	}
	if got == nil || string(got.State) != `"s1"` || string(got.Responses["a"]) != `{"action":"accept"}` || len(got.Responses) != 2 {
		t.Fatalf("second round input: %+v", got)
	}
	err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.b": json.RawMessage(`{}`)})
	if !errors.Is(err, errNotWaiting) {
		t.Fatalf("update of a completed task: %v", err)
	}
}

func TestKeysStayUniqueAcrossRounds(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	rec := h.create(t, "twice", func(_ context.Context, in *Input) Outcome {
		if in == nil || string(in.State) == `1` {
			n := "1"
			if in != nil {
				n = "2"
			}
			return Outcome{InputRequests: map[string]json.RawMessage{"q": json.RawMessage(`{"method":"roots/list"}`)}, State: json.RawMessage(n)}
		}
		return result("ok")
	})
	waitStatus(t, h, rec.ID, taskstore.StatusInputRequired)
	if err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.q": json.RawMessage(`{"roots":[]}`)}); err != nil {
		t.Fatal(err)
	}
	waitRevisionAbove(t, h, rec.ID, 3, taskstore.StatusInputRequired)
	r := h.get(t, rec.ID)
	if !strings.Contains(string(r.InputRequests), `"2.q"`) {
		t.Fatalf("second round keys: %s", r.InputRequests)
	}
	// The first round's key is spent: answering it again changes nothing.
	if err := h.e.update(bg, "alice", rec.ID, map[string]json.RawMessage{"1.q": json.RawMessage(`{"roots":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if h.get(t, rec.ID).Revision != r.Revision {
		t.Fatal("an answer under a spent key changed the task")
	}
}

func TestCancel(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	stopped := make(chan struct{})
	rec := h.create(t, "slow", func(ctx context.Context, _ *Input) Outcome {
		<-ctx.Done()
		close(stopped)
		return result("too late")
	})
	if err := h.e.cancel(bg, "alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	<-stopped
	h.ev.waitEnded(t, rec.ID)
	if r := h.get(t, rec.ID); r.Status != taskstore.StatusCancelled || r.Result != nil {
		t.Fatalf("after cancel: %s %s", r.Status, r.Result)
	}
	if err := h.e.cancel(bg, "alice", rec.ID); err != nil {
		t.Fatalf("cancelling a cancelled task: %v", err)
	}
	waiting := h.create(t, "ask", func(context.Context, *Input) Outcome {
		return Outcome{InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)}}
	})
	waitStatus(t, h, waiting.ID, taskstore.StatusInputRequired)
	if err := h.e.cancel(bg, "alice", waiting.ID); err != nil {
		t.Fatal(err)
	}
	if r := h.get(t, waiting.ID); r.Status != taskstore.StatusCancelled || r.InputRequests != nil {
		t.Fatalf("cancelled while waiting: %s %s", r.Status, r.InputRequests)
	}
}

func TestDeadlineFailsTheTask(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), func(c *engineConfig) { c.timeout = 50 * time.Millisecond })
	stopped := make(chan struct{})
	rec := h.create(t, "stuck", func(ctx context.Context, _ *Input) Outcome {
		<-ctx.Done()
		close(stopped)
		return result("late")
	})
	h.ev.waitEnded(t, rec.ID)
	<-stopped
	r := h.get(t, rec.ID)
	if r.Status != taskstore.StatusFailed || !strings.Contains(string(r.Error), "deadline") {
		t.Fatalf("after the deadline: %s %s", r.Status, r.Error)
	}
}

func TestFullRunnerRefuses(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), func(c *engineConfig) { c.maxTasks, c.maxRunning = 2, 1 })
	release := make(chan struct{})
	block := func(ctx context.Context, _ *Input) Outcome {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return result("ok")
	}
	a := h.create(t, "a", block)
	b := h.create(t, "b", block) // queued behind a: the budget runs one at a time
	_, err := h.e.create(bg, call{principal: "alice", method: "tools/call", name: "c", run: block})
	if !errors.Is(err, errFull) || !strings.Contains(err.Error(), "2 unfinished tasks") {
		t.Fatalf("third task: %v", err)
	}
	close(release)
	h.ev.waitEnded(t, a.ID)
	h.ev.waitEnded(t, b.ID)
	h.create(t, "d", block)
}

func TestOtherPrincipalsAndBadIDs(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	rec := h.create(t, "ask", func(context.Context, *Input) Outcome {
		return Outcome{InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)}}
	})
	waitStatus(t, h, rec.ID, taskstore.StatusInputRequired)
	before := h.get(t, rec.ID)
	for _, id := range []string{rec.ID, taskstore.NewID(), "not-a-task", ""} {
		principal := "mallory"
		if id != rec.ID {
			principal = "alice"
		}
		if _, err := h.e.get(bg, principal, id); !errors.Is(err, errNotFound) {
			t.Fatalf("get %q as %s: %v", id, principal, err)
		}
		if err := h.e.update(bg, principal, id, map[string]json.RawMessage{"1.k": json.RawMessage(`{}`)}); !errors.Is(err, errNotFound) {
			t.Fatalf("update %q as %s: %v", id, principal, err)
		}
		if err := h.e.cancel(bg, principal, id); !errors.Is(err, errNotFound) {
			t.Fatalf("cancel %q as %s: %v", id, principal, err)
		}
	}
	if after := h.get(t, rec.ID); after.Revision != before.Revision || after.Status != taskstore.StatusInputRequired {
		t.Fatal("refused requests changed the task")
	}
}

func TestOversizedResultFailsTheTask(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{MaxValueBytes: 256}), nil)
	rec := h.create(t, "big", func(context.Context, *Input) Outcome { return result(strings.Repeat("x", 300)) })
	h.ev.waitEnded(t, rec.ID)
	r := h.get(t, rec.ID)
	if r.Status != taskstore.StatusFailed || r.Result != nil || !strings.Contains(string(r.Error), "value too large") {
		t.Fatalf("oversized result: %s %s", r.Status, r.Error)
	}
}

func TestResultThatIsNotAnObjectFailsTheTask(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	rec := h.create(t, "odd", func(context.Context, *Input) Outcome { return Outcome{Result: json.RawMessage(`[1]`)} })
	h.ev.waitEnded(t, rec.ID)
	if r := h.get(t, rec.ID); r.Status != taskstore.StatusFailed || !strings.Contains(string(r.Error), "not a JSON object") {
		t.Fatalf("non-object result: %s %s", r.Status, r.Error)
	}
}

func TestIdempotencyKeyStartsOneTask(t *testing.T) {
	h := newHarness(t, taskstore.NewMemory(taskstore.Options{}), nil)
	var mu sync.Mutex
	runs := 0
	run := func(context.Context, *Input) Outcome {
		mu.Lock()
		runs++
		mu.Unlock()
		return result("once")
	}
	c := call{principal: "alice", idempotencyKey: "k1", method: "tools/call", name: "once", run: run}
	a, err := h.e.create(bg, c)
	if err != nil {
		t.Fatal(err)
	}
	h.ev.waitEnded(t, a.ID)
	b, err := h.e.create(bg, c)
	if err != nil || b.ID != a.ID {
		t.Fatalf("second create with the key: %s, %v", b.ID, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if runs != 1 {
		t.Fatalf("the work ran %d times", runs)
	}
}

func TestShutdownSettlesTasks(t *testing.T) {
	store := taskstore.NewMemory(taskstore.Options{})
	h := newHarness(t, store, nil)
	block := func(ctx context.Context, _ *Input) Outcome { <-ctx.Done(); return result("late") }
	plain := h.create(t, "plain", block)
	res, err := h.e.create(bg, call{principal: "alice", method: "tools/call", name: "again", resumable: true, run: block})
	if err != nil {
		t.Fatal(err)
	}
	waiting := h.create(t, "ask", func(context.Context, *Input) Outcome {
		return Outcome{InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"roots/list"}`)}}
	})
	waitStatus(t, h, waiting.ID, taskstore.StatusInputRequired)
	if err := h.e.close(bg); err != nil {
		t.Fatal(err)
	}
	check := func(id string, want taskstore.Status, msg string) {
		t.Helper()
		r, err := store.Get(bg, id)
		if err != nil || r.Status != want || !strings.Contains(string(r.Error), msg) {
			t.Fatalf("task %s after shutdown: %s %s, %v", id, r.Status, r.Error, err)
		}
	}
	check(plain.ID, taskstore.StatusFailed, shutdownMessage)
	check(res.ID, taskstore.StatusWorking, "")
	check(waiting.ID, taskstore.StatusInputRequired, "")
	if _, err := h.e.create(bg, call{principal: "alice", method: "tools/call", name: "x", run: block}); !errors.Is(err, errClosed) {
		t.Fatalf("create after close: %v", err)
	}

	// A new engine on the same store resumes the resumable task and can
	// still take the answer the waiting one needs.
	ev := newEvents()
	h2 := &harness{ev: ev, store: store, runs: map[string]RunFunc{
		"again": func(context.Context, *Input) Outcome { return result("resumed") },
		"ask": func(_ context.Context, in *Input) Outcome {
			if string(in.Responses["k"]) != `{"roots":[]}` {
				return Outcome{Error: internalError("wrong answer " + string(in.Responses["k"]))}
			}
			return result("answered")
		},
	}}
	h2 = newHarnessWith(t, h2, nil)
	h2.ev.waitEnded(t, res.ID)
	if r := h2.get(t, res.ID); r.Status != taskstore.StatusCompleted || !strings.Contains(string(r.Result), "resumed") {
		t.Fatalf("resumed task: %s %s", r.Status, r.Result)
	}
	if err := h2.e.update(bg, "alice", waiting.ID, map[string]json.RawMessage{"1.k": json.RawMessage(`{"roots":[]}`)}); err != nil {
		t.Fatal(err)
	}
	h2.ev.waitEnded(t, waiting.ID)
	if r := h2.get(t, waiting.ID); r.Status != taskstore.StatusCompleted || !strings.Contains(string(r.Result), "answered") {
		t.Fatalf("answered after the restart: %s %s", r.Status, r.Result)
	}
}

// waitStatus waits until the task reaches status, bounded by 10 s.
func waitStatus(t *testing.T, h *harness, id string, status taskstore.Status) {
	t.Helper()
	waitRevisionAbove(t, h, id, 0, status)
}

// waitRevisionAbove waits until the task is at status past revision rev,
// reading it again after each event the engine reports, for at most 10 s.
func waitRevisionAbove(t *testing.T, h *harness, id string, rev uint64, status taskstore.Status) {
	t.Helper()
	limit := time.After(10 * time.Second)
	for {
		tick := h.ev.next()
		r := h.get(t, id)
		if r.Status == status && r.Revision > rev {
			return
		}
		if r.Status.Terminal() {
			t.Fatalf("task %s ended %s waiting for %s", id, r.Status, status)
		}
		select {
		case <-tick:
		case <-limit:
			t.Fatalf("task %s did not reach %s within 10s (it is %s)", id, status, r.Status)
		}
	}
}
