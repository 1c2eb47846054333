package tasks_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/testkit"
)

// listenServer is a Runtime with the tasks extension and a Hub. Its tool
// "job" waits for a word on gates[arguments.gate], then completes, fails
// (-32603) or asks for input ("ask"; then it completes) as the word says.
type listenServer struct {
	rt    *dispatch.Runtime
	hub   *hub.Hub
	gates map[string]chan string
}

func newListenServer(t *testing.T, opts hub.Options, gates ...string) *listenServer {
	t.Helper()
	s := &listenServer{hub: hub.New(opts), gates: map[string]chan string{}}
	for _, g := range gates {
		s.gates[g] = make(chan string, 1)
	}
	r, err := tasks.New(tasks.WithTools(tasks.Tool{Name: "job", Support: tasks.Optional}))
	if err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"gate":{"type":"string"}}}`)
	s.rt, err = dispatch.New(mcp.Implementation{Name: "tasks-listen-test", Version: "1"},
		dispatch.WithLogger(slog.New(slog.DiscardHandler)), r.Option(), dispatch.WithSubscriptions(s.hub),
		dispatch.WithTool(mcp.Tool{Name: "job", Description: "waits for its gate", InputSchema: schema},
			func(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
				if _, ok := req.Input.Elicitation("ok"); ok {
					return mcp.TextResult("answered"), nil
				}
				var args struct{ Gate string }
				_ = json.Unmarshal(req.Arguments, &args)
				var word string
				select {
				case word = <-s.gates[args.Gate]:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				switch word {
				case "fail":
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the job failed"}
				case "ask":
					return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{
						"ok": mcp.ElicitForm("OK?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)),
					}}
				}
				return mcp.TextResult("done"), nil
			}))
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(s.rt)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), s.rt, sup); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.Close(context.Background())
		_ = sup.Close(context.Background())
	})
	return s
}

// as sends a request as principal.
func (s *listenServer) as(t *testing.T, principal, method string, params map[string]any) *testkit.Frame {
	t.Helper()
	params["_meta"] = declared
	return testfixture.DispatchRequest(t, s.rt, testkit.Request(1, method, params), func(r *dispatch.Request) { r.Principal = principal })
}

// start creates a task of "job" behind gate, as principal.
func (s *listenServer) start(t *testing.T, principal, gate string) string {
	t.Helper()
	f := s.as(t, principal, "tools/call", map[string]any{"name": "job", "arguments": map[string]any{"gate": gate}})
	var created mcp.Task
	if f.Error != nil || json.Unmarshal(f.Result, &created) != nil || created.TaskID == "" {
		t.Fatalf("tools/call: %s", f.Raw)
	}
	return created.TaskID
}

// taskListener is an open listen stream, read frame by frame.
type taskListener struct {
	s    *dispatch.Stream
	wake chan struct{}
}

// listen opens a stream for principal following ids.
func (s *listenServer) listen(t *testing.T, principal string, ids ...string) *taskListener {
	t.Helper()
	msg, err := jsonrpc.Decode(testkit.Request("listen-"+principal, dispatch.MethodListen, map[string]any{
		"_meta": declared, "notifications": map[string]any{"taskIds": ids}}))
	if err != nil {
		t.Fatal(err)
	}
	c, out := s.rt.Admit(&dispatch.Request{Message: msg, Principal: principal})
	if c == nil {
		t.Fatalf("listen refused: %s", out.Frame)
	}
	l := &taskListener{wake: make(chan struct{}, 1)}
	l.s, out = s.rt.OpenStream(context.Background(), c, func() {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	})
	if l.s == nil {
		t.Fatalf("open: %s", out.Frame)
	}
	t.Cleanup(l.s.Close)
	return l
}

// next returns the stream's next frame, waiting for it, validated against
// the schemas.
func (l *taskListener) next(t *testing.T) []byte {
	t.Helper()
	timeout := time.After(testkit.DefaultTimeout)
	for {
		frame, last := l.s.Next()
		if frame != nil {
			if err := testkit.ValidateFrame(mcp.Version20260728, frame, dispatch.MethodListen); err != nil {
				t.Fatalf("frame fails the schema: %v\n%s", err, frame)
			}
			return frame
		}
		if last {
			t.Fatal("the stream ended")
		}
		select {
		case <-l.wake:
		case <-timeout:
			t.Fatal("no frame within the timeout")
		}
	}
}

// idle fails unless the stream has nothing to send.
func (l *taskListener) idle(t *testing.T) {
	t.Helper()
	if frame, _ := l.s.Next(); frame != nil {
		t.Fatalf("unexpected frame: %s", frame)
	}
}

// ack reads the acknowledgement and returns the task ids it accepted.
func (l *taskListener) ack(t *testing.T) []string {
	t.Helper()
	var f struct {
		Method string `json:"method"`
		Params struct {
			Notifications mcp.SubscriptionFilter `json:"notifications"`
		} `json:"params"`
	}
	frame := l.next(t)
	if err := json.Unmarshal(frame, &f); err != nil || f.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("acknowledgement: %s", frame)
	}
	return f.Params.Notifications.Keys[mcp.FilterTaskIDs]
}

// status reads one notifications/tasks.
func (l *taskListener) status(t *testing.T) mcp.Task {
	t.Helper()
	frame := l.next(t)
	var f struct {
		Method string   `json:"method"`
		Params mcp.Task `json:"params"`
	}
	if err := json.Unmarshal(frame, &f); err != nil || f.Method != mcp.NotificationTasks {
		t.Fatalf("not a task status: %s", frame)
	}
	if !strings.Contains(string(frame), `"io.modelcontextprotocol/subscriptionId"`) {
		t.Fatalf("status without the subscription id: %s", frame)
	}
	return f.Params
}

func TestListenersHearExactlyTheirOwnTasks(t *testing.T) {
	s := newListenServer(t, hub.Options{}, "a1", "a2", "a3", "a4", "b1")
	a1, a2, a3, a4 := s.start(t, "alice", "a1"), s.start(t, "alice", "a2"), s.start(t, "alice", "a3"), s.start(t, "alice", "a4")
	b1 := s.start(t, "bob", "b1")

	alice := s.listen(t, "alice", a1, a2, b1, a3, a4, "AAAAAAAAAAAAAAAAAAAAAAAAAA")
	if got := alice.ack(t); !slices.Equal(got, []string{a1, a2, a3, a4}) {
		t.Fatalf("alice may follow %v, want her four tasks", got)
	}
	// Bob names alice's task: it is not his, so it is left out, exactly as
	// an unknown id. Removing the principal check makes this fail.
	bob := s.listen(t, "bob", a1, b1)
	if got := bob.ack(t); !slices.Equal(got, []string{b1}) {
		t.Fatalf("bob may follow %v, want only %s", got, b1)
	}
	// A listener that follows nothing of alice's.
	other := s.listen(t, "alice", b1)
	if got := other.ack(t); len(got) != 0 {
		t.Fatalf("alice may follow bob's task: %v", got)
	}

	// Bob's task completes: bob hears it, alice does not.
	s.gates["b1"] <- "ok"
	if st := bob.status(t); st.TaskID != b1 || st.Status != mcp.TaskCompleted || !strings.Contains(string(st.Result), "done") {
		t.Fatalf("bob's status: %+v", st)
	}
	alice.idle(t)

	// a1 completes; a2 fails; a3 asks for input, is answered, completes;
	// a4 is cancelled.
	s.gates["a1"] <- "ok"
	if st := alice.status(t); st.TaskID != a1 || st.Status != mcp.TaskCompleted || st.ResultType != "" || !strings.Contains(string(st.Result), "done") {
		t.Fatalf("a1: %+v", st)
	}
	s.gates["a2"] <- "fail"
	if st := alice.status(t); st.TaskID != a2 || st.Status != mcp.TaskFailed || st.Error == nil || st.Error.Message != "the job failed" {
		t.Fatalf("a2: %+v", st)
	}
	s.gates["a3"] <- "ask"
	st := alice.status(t)
	if st.TaskID != a3 || st.Status != mcp.TaskInputRequired || st.InputRequests["1.ok"] == nil {
		t.Fatalf("a3 waiting: %+v", st)
	}
	if f := s.as(t, "alice", "tasks/update", map[string]any{"taskId": a3,
		"inputResponses": map[string]any{"1.ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}); f.Error != nil {
		t.Fatalf("tasks/update: %s", f.Raw)
	}
	if st := alice.status(t); st.TaskID != a3 || st.Status != mcp.TaskWorking {
		t.Fatalf("a3 resumed: %+v", st)
	}
	if st := alice.status(t); st.TaskID != a3 || st.Status != mcp.TaskCompleted || !strings.Contains(string(st.Result), "answered") {
		t.Fatalf("a3 completed: %+v", st)
	}
	if f := s.as(t, "alice", "tasks/cancel", map[string]any{"taskId": a4}); f.Error != nil {
		t.Fatalf("tasks/cancel: %s", f.Raw)
	}
	if st := alice.status(t); st.TaskID != a4 || st.Status != mcp.TaskCancelled {
		t.Fatalf("a4: %+v", st)
	}
	// Cancelling a finished task changes nothing, and says nothing.
	if f := s.as(t, "alice", "tasks/cancel", map[string]any{"taskId": a1}); f.Error != nil {
		t.Fatalf("tasks/cancel of a finished task: %s", f.Raw)
	}
	alice.idle(t)
	bob.idle(t)
	other.idle(t)
}

func TestASlowListenerKeepsTheLatestStatus(t *testing.T) {
	s := newListenServer(t, hub.Options{MaxBuffer: 1}, "a")
	id := s.start(t, "alice", "a")
	l := s.listen(t, "alice", id)
	if got := l.ack(t); !slices.Equal(got, []string{id}) {
		t.Fatalf("ack: %v", got)
	}
	// Three transitions while the listener reads nothing: with room for
	// one, the oldest are dropped and the terminal status stays.
	s.gates["a"] <- "ask"
	waitStatus(t, s, id, mcp.TaskInputRequired)
	if f := s.as(t, "alice", "tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"1.ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}); f.Error != nil {
		t.Fatalf("tasks/update: %s", f.Raw)
	}
	waitStatus(t, s, id, mcp.TaskCompleted)
	if st := l.status(t); st.Status != mcp.TaskCompleted {
		t.Fatalf("after overflow: %+v", st)
	}
	l.idle(t)
	if hs := s.hub.Stats(); hs.Dropped != 2 {
		t.Fatalf("hub stats: %+v, want 2 dropped", hs)
	}
}

// waitStatus polls tasks/get until the task has status, within the
// default timeout.
func waitStatus(t *testing.T, s *listenServer, id string, status mcp.TaskStatus) {
	t.Helper()
	for limit := time.Now().Add(testkit.DefaultTimeout); time.Now().Before(limit); time.Sleep(2 * time.Millisecond) {
		var got mcp.Task
		_ = json.Unmarshal(s.as(t, "alice", "tasks/get", map[string]any{"taskId": id}).Result, &got)
		if got.Status == status {
			return
		}
	}
	t.Fatalf("task %s never reached %s", id, status)
}

func TestListenWithoutTheExtensionFollowsNoTask(t *testing.T) {
	s := newListenServer(t, hub.Options{}, "a")
	id := s.start(t, "alice", "a")
	msg, _ := jsonrpc.Decode(testkit.Request("L", dispatch.MethodListen, map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}))
	c, out := s.rt.Admit(&dispatch.Request{Message: msg, Principal: "alice"})
	if c == nil {
		t.Fatalf("listen refused: %s", out.Frame)
	}
	st, out := s.rt.OpenStream(context.Background(), c, func() {})
	if st == nil {
		t.Fatalf("open: %s", out.Frame)
	}
	defer st.Close()
	if keys := st.Accepted().Keys; len(keys) != 0 {
		t.Fatalf("a request that did not declare the extension follows %v", keys)
	}
	s.gates["a"] <- "ok"
}
