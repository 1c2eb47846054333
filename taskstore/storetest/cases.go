// This file holds the cases of the contract suite.

package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

func testCreateAndGet(t *testing.T, e *env) {
	in := working()
	got := e.create(t, in)
	now := e.clock.Now()
	want := in
	want.Revision, want.CreatedAt, want.UpdatedAt = 1, now, now
	same(t, "Create's record", got, want)
	same(t, "Get after Create", e.get(t, in.ID), want)

	// A caller's CreatedAt is kept; the store still stamps UpdatedAt.
	in2 := working()
	in2.CreatedAt = now.Add(-time.Minute)
	got2 := e.create(t, in2)
	if !got2.CreatedAt.Equal(in2.CreatedAt) || !got2.UpdatedAt.Equal(now) {
		t.Fatalf("createdAt %v updatedAt %v, want %v and %v", got2.CreatedAt, got2.UpdatedAt, in2.CreatedAt, now)
	}
	if got2.CreatedAt.Location() != time.UTC {
		t.Fatalf("createdAt is in %v, want UTC", got2.CreatedAt.Location())
	}
}

func testCreateRefusesTakenID(t *testing.T, e *env) {
	first := e.create(t, working())
	dup := working()
	dup.ID = first.ID
	dup.Name = "other"
	_, created, err := e.s.Create(ctx, dup)
	wantErr(t, "Create with a taken id", err, taskstore.ErrExists)
	if created {
		t.Fatal("Create reported created with a taken id")
	}
	same(t, "record after the refused Create", e.get(t, first.ID), first)
}

func testCreateRefusesInvalid(t *testing.T, e *env) {
	obj := json.RawMessage(`{"k":1}`)
	cases := map[string]func(*taskstore.Record){
		"malformed id":                  func(r *taskstore.Record) { r.ID = "task-1" },
		"empty id":                      func(r *taskstore.Record) { r.ID = "" },
		"no method":                     func(r *taskstore.Record) { r.Method = "" },
		"unknown status":                func(r *taskstore.Record) { r.Status = "running" },
		"completed without result":      func(r *taskstore.Record) { r.Status = taskstore.StatusCompleted },
		"failed without error":          func(r *taskstore.Record) { r.Status = taskstore.StatusFailed },
		"input_required without inputs": func(r *taskstore.Record) { r.Status = taskstore.StatusInputRequired },
		"working with a result":         func(r *taskstore.Record) { r.Result = obj },
		"working with an error":         func(r *taskstore.Record) { r.Error = obj },
		"working with input requests":   func(r *taskstore.Record) { r.InputRequests = obj },
		"cancelled with input responses": func(r *taskstore.Record) {
			r.Status, r.InputResponses = taskstore.StatusCancelled, obj
		},
		"completed with an error": func(r *taskstore.Record) {
			r.Status, r.Result, r.Error = taskstore.StatusCompleted, obj, obj
		},
		"result not an object": func(r *taskstore.Record) {
			r.Status, r.Result = taskstore.StatusCompleted, json.RawMessage(`[1]`)
		},
		"params not JSON": func(r *taskstore.Record) { r.Params = json.RawMessage(`{"a":`) },
		"negative TTL":    func(r *taskstore.Record) { r.TTL = -time.Second },
	}
	for name, mutate := range cases {
		r := working()
		mutate(&r)
		_, created, err := e.s.Create(ctx, r)
		wantErr(t, name, err, taskstore.ErrInvalid)
		if created {
			t.Fatalf("%s: reported created", name)
		}
		if r.ID != "" {
			_, err = e.s.Get(ctx, r.ID)
			wantErr(t, name+": Get after the refusal", err, taskstore.ErrNotFound)
		}
	}
	if recs, err := e.s.Unfinished(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("Unfinished after refusals: %d records, %v", len(recs), err)
	}
}

func testIdempotencyKey(t *testing.T, e *env) {
	a := working()
	a.IdempotencyKey, a.TTL = "key-1", time.Minute
	first := e.create(t, a)

	again := working()
	again.IdempotencyKey = "key-1"
	got, created, err := e.s.Create(ctx, again)
	if err != nil || created {
		t.Fatalf("second Create with the key: created %v, %v", created, err)
	}
	same(t, "second Create with the key", got, first)
	_, err = e.s.Get(ctx, again.ID)
	wantErr(t, "Get of the id the second Create proposed", err, taskstore.ErrNotFound)

	other := working()
	other.IdempotencyKey, other.Principal = "key-1", "bob"
	if r := e.create(t, other); r.ID == first.ID {
		t.Fatal("another principal's key returned alice's task")
	}

	reused := working()
	reused.IdempotencyKey, reused.Name = "key-1", "greet"
	_, created, err = e.s.Create(ctx, reused)
	wantErr(t, "the key for another tool", err, taskstore.ErrKeyReused)
	if created {
		t.Fatal("reused key reported created")
	}

	// The key survives the task's progress, and frees when it expires.
	fin := first
	fin.Status, fin.Result = taskstore.StatusCompleted, json.RawMessage(`{"content":[]}`)
	e.update(t, fin)
	if got, created, err = e.s.Create(ctx, again); err != nil || created || got.ID != first.ID {
		t.Fatalf("Create with the key after completion: %s created %v, %v", got.ID, created, err)
	}
	e.clock.Advance(time.Minute)
	if got, created, err = e.s.Create(ctx, again); err != nil || !created || got.ID != again.ID {
		t.Fatalf("Create with the key after expiry: %s created %v, %v", got.ID, created, err)
	}
}

func testConcurrentCreate(t *testing.T, e *env) {
	const n = 32
	var wg sync.WaitGroup
	ids := make([]string, n)
	createdCount := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			r := working()
			r.IdempotencyKey = "shared"
			got, created, err := e.s.Create(ctx, r)
			ids[i], createdCount[i], errs[i] = got.ID, created, err
		})
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Create %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("Create %d returned task %s, Create 0 returned %s", i, ids[i], ids[0])
		}
		if createdCount[i] {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d Creates report created, want 1", winners)
	}
	recs, _ := e.s.Unfinished(ctx)
	if len(recs) != 1 {
		t.Fatalf("%d records stored, want 1", len(recs))
	}
}

func testUpdateCAS(t *testing.T, e *env) {
	r := e.create(t, working())
	e.clock.Advance(time.Second)
	next := r
	next.StatusMessage = "halfway"
	got := e.update(t, next)
	if got.Revision != 2 || !got.UpdatedAt.Equal(e.clock.Now()) || !got.CreatedAt.Equal(r.CreatedAt) {
		t.Fatalf("after Update: revision %d updatedAt %v createdAt %v", got.Revision, got.UpdatedAt, got.CreatedAt)
	}
	same(t, "Get after Update", e.get(t, r.ID), got)

	stale := r // still at revision 1
	stale.StatusMessage = "stale"
	_, err := e.s.Update(ctx, stale)
	wantErr(t, "Update from an old revision", err, taskstore.ErrConflict)
	ahead := got
	ahead.Revision = 7
	_, err = e.s.Update(ctx, ahead)
	wantErr(t, "Update from a future revision", err, taskstore.ErrConflict)
	same(t, "record after the conflicts", e.get(t, r.ID), got)
}

func testConcurrentClaim(t *testing.T, e *env) {
	r := working()
	r.Owner = ""
	r = e.create(t, r)
	const n = 32
	var wg sync.WaitGroup
	wins := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			c := r
			c.Owner = fmt.Sprintf("runner-%d", i)
			_, err := e.s.Update(ctx, c)
			switch {
			case err == nil:
				wins[i] = true
			case !errors.Is(err, taskstore.ErrConflict):
				t.Errorf("claim %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	winner := -1
	for i, w := range wins {
		if w {
			if winner >= 0 {
				t.Fatalf("runners %d and %d both took the task", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no runner took the task")
	}
	got := e.get(t, r.ID)
	if got.Owner != fmt.Sprintf("runner-%d", winner) || got.Revision != 2 {
		t.Fatalf("owner %q revision %d, want runner-%d at 2", got.Owner, got.Revision, winner)
	}
}

func testForwardOnly(t *testing.T, e *env) {
	r := e.create(t, working())
	r.Status, r.InputRequests = taskstore.StatusInputRequired, json.RawMessage(`{"confirm":{"method":"elicitation/create","params":{}}}`)
	r = e.update(t, r)
	r.InputResponses = json.RawMessage(`{"confirm":{"action":"accept"}}`)
	r = e.update(t, r)
	r.Status, r.InputRequests, r.InputResponses = taskstore.StatusWorking, nil, nil
	if r = e.update(t, r); r.Revision != 4 || r.Status != taskstore.StatusWorking {
		t.Fatalf("after working → input_required → working: revision %d, %s", r.Revision, r.Status)
	}

	for _, end := range []struct {
		status taskstore.Status
		set    func(*taskstore.Record)
	}{
		{taskstore.StatusCompleted, func(x *taskstore.Record) { x.Result = json.RawMessage(`{"content":[]}`) }},
		{taskstore.StatusFailed, func(x *taskstore.Record) { x.Error = json.RawMessage(`{"code":-32603,"message":"x"}`) }},
		{taskstore.StatusCancelled, func(*taskstore.Record) {}},
	} {
		x := e.create(t, working())
		x.Status = end.status
		end.set(&x)
		x.Owner = ""
		fin := e.update(t, x)
		for _, back := range []taskstore.Record{
			func() taskstore.Record {
				y := fin
				y.Status, y.Result, y.Error = taskstore.StatusWorking, nil, nil
				return y
			}(),
			func() taskstore.Record { y := fin; y.StatusMessage = "changed after the end"; return y }(),
			func() taskstore.Record {
				y := fin
				y.Status, y.Result, y.Error = taskstore.StatusCancelled, nil, nil
				return y
			}(),
		} {
			_, err := e.s.Update(ctx, back)
			wantErr(t, fmt.Sprintf("a change to a %s task", end.status), err, taskstore.ErrTerminal)
		}
		same(t, fmt.Sprintf("%s task after refused changes", end.status), e.get(t, x.ID), fin)
	}
}

func testImmutable(t *testing.T, e *env) {
	r := working()
	r.IdempotencyKey = "k"
	r = e.create(t, r)
	for name, mutate := range map[string]func(*taskstore.Record){
		"principal":      func(x *taskstore.Record) { x.Principal = "mallory" },
		"idempotencyKey": func(x *taskstore.Record) { x.IdempotencyKey = "other" },
		"method":         func(x *taskstore.Record) { x.Method = "prompts/get" },
		"name":           func(x *taskstore.Record) { x.Name = "greet" },
		"params":         func(x *taskstore.Record) { x.Params = json.RawMessage(`{"name":"slow_compute"}`) },
		"resumable":      func(x *taskstore.Record) { x.Resumable = true },
		"createdAt":      func(x *taskstore.Record) { x.CreatedAt = x.CreatedAt.Add(-time.Hour) },
	} {
		x := r
		mutate(&x)
		_, err := e.s.Update(ctx, x)
		wantErr(t, "changing "+name, err, taskstore.ErrInvalid)
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Fatalf("changing %s: the error %q does not name the field", name, err)
		}
	}
	same(t, "record after refused changes", e.get(t, r.ID), r)
}

func testPayloadFitsStatus(t *testing.T, e *env) {
	r := e.create(t, working())
	for name, mutate := range map[string]func(*taskstore.Record){
		"completed without result": func(x *taskstore.Record) { x.Status = taskstore.StatusCompleted },
		"failed with a result": func(x *taskstore.Record) {
			x.Status, x.Error, x.Result = taskstore.StatusFailed, json.RawMessage(`{"code":1,"message":"m"}`), json.RawMessage(`{}`)
		},
		"cancelled with a result": func(x *taskstore.Record) {
			x.Status, x.Result = taskstore.StatusCancelled, json.RawMessage(`{}`)
		},
		"working with input requests": func(x *taskstore.Record) { x.InputRequests = json.RawMessage(`{}`) },
		"error not an object": func(x *taskstore.Record) {
			x.Status, x.Error = taskstore.StatusFailed, json.RawMessage(`"boom"`)
		},
	} {
		x := r
		mutate(&x)
		_, err := e.s.Update(ctx, x)
		wantErr(t, name, err, taskstore.ErrInvalid)
	}
	same(t, "record after refused updates", e.get(t, r.ID), r)
}

func testBoundedValues(t *testing.T, e *env) {
	fits := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("x", maxValue-39) + `"}]}`)
	if len(fits) != maxValue {
		t.Fatalf("test setup: %d bytes", len(fits))
	}
	over := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("x", maxValue-38) + `"}]}`)

	big := working()
	big.Params = over
	_, _, err := e.s.Create(ctx, big)
	wantErr(t, "Create with oversized params", err, taskstore.ErrTooLarge)

	r := e.create(t, working())
	x := r
	x.Status, x.Result = taskstore.StatusCompleted, over
	_, err = e.s.Update(ctx, x)
	wantErr(t, "an oversized result", err, taskstore.ErrTooLarge)
	same(t, "record after the oversized result", e.get(t, r.ID), r)
	for name, set := range map[string]func(*taskstore.Record){
		"error":         func(y *taskstore.Record) { y.Status, y.Error = taskstore.StatusFailed, over },
		"inputRequests": func(y *taskstore.Record) { y.Status, y.InputRequests = taskstore.StatusInputRequired, over },
		"state":         func(y *taskstore.Record) { y.State = over },
		"inputResponses": func(y *taskstore.Record) {
			y.Status, y.InputRequests, y.InputResponses = taskstore.StatusInputRequired, fits, over
		},
	} {
		y := r
		set(&y)
		_, err = e.s.Update(ctx, y)
		wantErr(t, "an oversized "+name, err, taskstore.ErrTooLarge)
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("the error %q does not name %s", err, name)
		}
	}
	x.Result = fits
	got := e.update(t, x)
	if string(e.get(t, r.ID).Result) != string(fits) || got.Revision != 2 {
		t.Fatal("a result of exactly the limit was not stored")
	}
}

func testTTL(t *testing.T, e *env) {
	r := working()
	r.TTL = 10 * time.Second
	r = e.create(t, r)
	forever := working()
	forever.TTL = 0
	forever = e.create(t, forever)

	e.clock.Advance(10*time.Second - time.Millisecond)
	e.get(t, r.ID)
	if recs, _ := e.s.Unfinished(ctx); len(recs) != 2 {
		t.Fatalf("Unfinished before the TTL: %d records", len(recs))
	}
	e.clock.Advance(time.Millisecond)
	got, err := e.s.Get(ctx, r.ID)
	wantErr(t, "Get at the TTL", err, taskstore.ErrExpired)
	if got.ID != r.ID || got.Principal != r.Principal {
		t.Fatalf("Get of an expired task returned %+v, want the record", got)
	}
	next := r
	next.StatusMessage = "late"
	_, err = e.s.Update(ctx, next)
	wantErr(t, "Update after the TTL", err, taskstore.ErrExpired)
	if recs, _ := e.s.Unfinished(ctx); len(recs) != 1 || recs[0].ID != forever.ID {
		t.Fatalf("Unfinished after the TTL: %v", ids(recs))
	}
	n, err := e.s.Expire(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Expire: %d, %v; want 1", n, err)
	}
	_, err = e.s.Get(ctx, r.ID)
	wantErr(t, "Get after Expire", err, taskstore.ErrNotFound)

	e.clock.Advance(24 * 365 * time.Hour)
	e.get(t, forever.ID)
	if n, err := e.s.Expire(ctx); err != nil || n != 0 {
		t.Fatalf("Expire with only an unlimited task: %d, %v", n, err)
	}
}

func testUnfinished(t *testing.T, e *env) {
	var want []string
	for i, st := range []taskstore.Status{taskstore.StatusWorking, taskstore.StatusCompleted, taskstore.StatusInputRequired, taskstore.StatusFailed, taskstore.StatusCancelled, taskstore.StatusWorking} {
		r := working()
		r.Status = st
		switch st {
		case taskstore.StatusCompleted:
			r.Result = json.RawMessage(`{"content":[]}`)
		case taskstore.StatusFailed:
			r.Error = json.RawMessage(`{"code":-32603,"message":"m"}`)
		case taskstore.StatusInputRequired:
			r.InputRequests = json.RawMessage(`{"a":{"method":"roots/list"}}`)
		}
		e.create(t, r)
		if !st.Terminal() {
			want = append(want, r.ID)
		}
		if i%2 == 0 {
			e.clock.Advance(time.Second)
		}
	}
	recs, err := e.s.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Oldest first; records created at the same instant in id order.
	if got := ids(recs); !sortedLike(got, want, recs) {
		t.Fatalf("Unfinished = %v, want %v oldest first", got, want)
	}
}

func testUnknown(t *testing.T, e *env) {
	_, err := e.s.Get(ctx, taskstore.NewID())
	wantErr(t, "Get of an unknown id", err, taskstore.ErrNotFound)
	_, err = e.s.Get(ctx, "not-a-task-id")
	wantErr(t, "Get of a malformed id", err, taskstore.ErrNotFound)
	r := working()
	r.Revision = 1
	_, err = e.s.Update(ctx, r)
	wantErr(t, "Update of an unknown id", err, taskstore.ErrNotFound)
}

func testNoAlias(t *testing.T, e *env) {
	r := working()
	params := []byte(`{"name":"slow_compute","arguments":{"seconds":5}}`)
	r.Params = params
	e.create(t, r)
	params[2] = 'X'
	got := e.get(t, r.ID)
	if string(got.Params) != `{"name":"slow_compute","arguments":{"seconds":5}}` {
		t.Fatalf("the store kept the caller's slice: %s", got.Params)
	}
	got.Params[2] = 'Y'
	if again := e.get(t, r.ID); string(again.Params) != `{"name":"slow_compute","arguments":{"seconds":5}}` {
		t.Fatalf("a returned slice aliases the store: %s", again.Params)
	}
}

func testRecover(t *testing.T, e *env) {
	plain := e.create(t, working())
	resumable := working()
	resumable.Resumable = true
	resumable = e.create(t, resumable)
	refused := working()
	refused.Resumable, refused.Name = true, "gone_tool"
	refused = e.create(t, refused)
	waiting := working()
	waiting.Status, waiting.InputRequests = taskstore.StatusInputRequired, json.RawMessage(`{"k":{"method":"elicitation/create"}}`)
	waiting = e.create(t, waiting)
	done := working()
	done.Status, done.Result, done.Owner = taskstore.StatusCompleted, json.RawMessage(`{"content":[]}`), ""
	done = e.create(t, done)

	resumed, err := taskstore.Recover(ctx, e.s, "runner-2", func(r taskstore.Record) bool { return r.Name != "gone_tool" })
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != 1 || resumed[0].ID != resumable.ID {
		t.Fatalf("resumed %v, want [%s]", ids(resumed), resumable.ID)
	}
	if r := e.get(t, resumable.ID); r.Owner != "runner-2" || r.Status != taskstore.StatusWorking || r.StatusMessage != taskstore.ResumedMessage {
		t.Fatalf("resumed task: owner %q status %s message %q", r.Owner, r.Status, r.StatusMessage)
	}
	for _, id := range []string{plain.ID, refused.ID} {
		r := e.get(t, id)
		var je struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(r.Error, &je); err != nil || r.Status != taskstore.StatusFailed || je.Code != -32603 ||
			!strings.Contains(je.Message, "process stopped") || r.StatusMessage != taskstore.StoppedMessage || r.Owner != "" {
			t.Fatalf("task %s after Recover: %s %q error %s owner %q", id, r.Status, r.StatusMessage, r.Error, r.Owner)
		}
	}
	w := e.get(t, waiting.ID)
	if w.Status != taskstore.StatusInputRequired || w.Owner != "" || string(w.InputRequests) != string(waiting.InputRequests) {
		t.Fatalf("waiting task after Recover: %s owner %q", w.Status, w.Owner)
	}
	same(t, "completed task after Recover", e.get(t, done.ID), done)

	// The resumed task is working again under runner-2; if runner-2 stops
	// in turn, the next Recover settles it once more (failed here, as this
	// runner cannot resume it).
	again, err := taskstore.Recover(ctx, e.s, "runner-3", func(taskstore.Record) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Fatalf("second Recover resumed %v", ids(again))
	}
	if r := e.get(t, resumable.ID); r.Status != taskstore.StatusFailed {
		t.Fatalf("a task resumed by a runner that stopped in turn is %s, want failed when it cannot resume again", r.Status)
	}
}

func testClosed(t *testing.T, e *env) {
	r := e.create(t, working())
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := e.s.Create(ctx, working())
	wantErr(t, "Create after Close", err, taskstore.ErrClosed)
	_, err = e.s.Get(ctx, r.ID)
	wantErr(t, "Get after Close", err, taskstore.ErrClosed)
	_, err = e.s.Update(ctx, r)
	wantErr(t, "Update after Close", err, taskstore.ErrClosed)
	_, err = e.s.Unfinished(ctx)
	wantErr(t, "Unfinished after Close", err, taskstore.ErrClosed)
	_, err = e.s.Expire(ctx)
	wantErr(t, "Expire after Close", err, taskstore.ErrClosed)
}

func testReopen(t *testing.T, e *env) {
	if e.h.Reopen == nil {
		t.Skip("the store is not durable (Harness.Reopen is nil)")
	}
	keyed := working()
	keyed.IdempotencyKey = "durable-key"
	keyed = e.create(t, keyed)
	completed := working()
	completed.Resumable = true
	completed = e.create(t, completed)
	completed.Status, completed.Owner = taskstore.StatusCompleted, ""
	completed.Result = json.RawMessage("{ \"content\": [ {\"type\":\"text\",\"text\":\"d\u00e9j\u00e0\"} ], \"isError\": false }")
	completed = e.update(t, completed)
	waiting := working()
	waiting = e.create(t, waiting)
	waiting.Status, waiting.Owner = taskstore.StatusInputRequired, ""
	waiting.InputRequests = json.RawMessage(`{"a":{"method":"elicitation/create","params":{"message":"ok?"}}}`)
	waiting.InputResponses = json.RawMessage(`{"b":{"action":"accept"}}`)
	waiting.State = json.RawMessage(`"opaque"`)
	waiting = e.update(t, waiting)
	short := working()
	short.TTL = time.Second
	short = e.create(t, short)

	e.s = e.h.Reopen(t, e.s, e.opts)
	for _, r := range []taskstore.Record{keyed, completed, waiting} {
		same(t, "record after reopening", e.get(t, r.ID), r)
	}
	if recs, _ := e.s.Unfinished(ctx); len(ids(recs)) != 3 {
		t.Fatalf("Unfinished after reopening: %v", ids(recs))
	}
	dup := working()
	dup.IdempotencyKey = "durable-key"
	if got, created, err := e.s.Create(ctx, dup); err != nil || created || got.ID != keyed.ID {
		t.Fatalf("the idempotency key after reopening: %s created %v, %v", got.ID, created, err)
	}
	next := waiting
	next.StatusMessage = "after reopening"
	if got := e.update(t, next); got.Revision != waiting.Revision+1 {
		t.Fatalf("revision after reopening: %d", got.Revision)
	}
	e.clock.Advance(time.Second)
	if n, err := e.s.Expire(ctx); err != nil || n != 1 {
		t.Fatalf("Expire after reopening: %d, %v", n, err)
	}
	_, err := e.s.Get(ctx, short.ID)
	wantErr(t, "the short task after Expire", err, taskstore.ErrNotFound)
}

func ids(recs []taskstore.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// sortedLike reports whether got holds want's ids, ordered by creation time
// then id.
func sortedLike(got, want []string, recs []taskstore.Record) bool {
	if len(got) != len(want) {
		return false
	}
	in := map[string]bool{}
	for _, id := range want {
		in[id] = true
	}
	for i, id := range got {
		if !in[id] {
			return false
		}
		if i > 0 {
			a, b := recs[i-1], recs[i]
			if a.CreatedAt.After(b.CreatedAt) || a.CreatedAt.Equal(b.CreatedAt) && a.ID > b.ID {
				return false
			}
		}
	}
	return true
}
