package backplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/taskstore/storetest"
)

func openStore(t *testing.T, nc *nats.Conn, name string, o taskstore.Options) *backplane.TaskStore {
	t.Helper()
	s, err := backplane.NewTaskStore(context.Background(), nc, o, backplane.WithName(name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTaskStoreContract runs the store contract suite, each case on a
// bucket of its own. Reopen restarts the NATS server on the same storage
// and opens the bucket through a new connection: what was stored survives
// both.
func TestTaskStoreContract(t *testing.T) {
	ns := startNATS(t)
	var buckets atomic.Int64
	names := map[taskstore.Store]string{}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, o taskstore.Options) taskstore.Store {
			name := fmt.Sprintf("contract%d", buckets.Add(1))
			s := openStore(t, ns.connect(t), name, o)
			names[s] = name
			return s
		},
		Reopen: func(t *testing.T, s taskstore.Store, o taskstore.Options) taskstore.Store {
			name := names[s]
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			ns.stop()
			ns.start()
			r := openStore(t, ns.connect(t), name, o)
			names[r] = name
			return r
		},
	})
}

// TestTaskAcrossInstances creates a task through one store, on one
// connection, and reads, updates and cancels it through another on a
// second connection, as two instances of a server would.
func TestTaskAcrossInstances(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	a := openStore(t, ns.connect(t), "shared", taskstore.Options{})
	b := openStore(t, ns.connect(t), "shared", taskstore.Options{})
	defer a.Close()
	defer b.Close()

	rec := taskstore.Record{
		ID: taskstore.NewID(), Principal: "alice", IdempotencyKey: "k1", Method: "tools/call", Name: "slow",
		Params: json.RawMessage(`{"name":"slow"}`), Status: taskstore.StatusWorking, TTL: time.Hour, Owner: "instance-a",
	}
	created, ok, err := a.Create(ctx, rec)
	if err != nil || !ok {
		t.Fatalf("Create on A: created %v, %v", ok, err)
	}

	// B sees the task, and the idempotency key A stored.
	got, err := b.Get(ctx, rec.ID)
	if err != nil || got.Revision != 1 || got.Owner != "instance-a" || string(got.Params) != `{"name":"slow"}` {
		t.Fatalf("Get on B: %+v, %v", got, err)
	}
	again := rec
	again.ID = taskstore.NewID()
	if dup, ok, err := b.Create(ctx, again); err != nil || ok || dup.ID != rec.ID {
		t.Fatalf("Create on B with A's key: %s created %v, %v; want A's task", dup.ID, ok, err)
	}

	// B updates it; A's copy is now stale and cannot overwrite B's write.
	next := got
	next.StatusMessage = "halfway, seen from B"
	upd, err := b.Update(ctx, next)
	if err != nil || upd.Revision != 2 {
		t.Fatalf("Update on B: revision %d, %v", upd.Revision, err)
	}
	stale := created
	stale.StatusMessage = "from A's old copy"
	if _, err := a.Update(ctx, stale); !errors.Is(err, taskstore.ErrConflict) {
		t.Fatalf("Update on A from revision 1 after B wrote 2: %v, want ErrConflict", err)
	}

	// B cancels it; A reads it cancelled, and can change it no more.
	cancel := upd
	cancel.Status, cancel.Owner = taskstore.StatusCancelled, ""
	if _, err := b.Update(ctx, cancel); err != nil {
		t.Fatalf("cancel on B: %v", err)
	}
	seen, err := a.Get(ctx, rec.ID)
	if err != nil || seen.Status != taskstore.StatusCancelled || seen.Revision != 3 || seen.StatusMessage != "halfway, seen from B" {
		t.Fatalf("Get on A after B cancelled: %s revision %d %q, %v", seen.Status, seen.Revision, seen.StatusMessage, err)
	}
	seen.StatusMessage = "too late"
	if _, err := a.Update(ctx, seen); !errors.Is(err, taskstore.ErrTerminal) {
		t.Fatalf("Update on A of the cancelled task: %v, want ErrTerminal", err)
	}
	if recs, err := a.Unfinished(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("Unfinished on A: %d records, %v", len(recs), err)
	}
}

// TestTaskTTLIsTheBucketsTTL checks that a record with a TTL is stored
// with a per-key TTL of what remains of it plus ExpiredRetention, so the
// bucket removes it even when no instance calls Expire, and that a record
// without a TTL is stored without one.
func TestTaskTTLIsTheBucketsTTL(t *testing.T) {
	ctx := context.Background()
	ns := startNATS(t)
	nc := ns.connect(t)
	clock := storetest.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	s := openStore(t, nc, "ttl", taskstore.Options{Now: clock.Now})
	defer s.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "KV_ttl-tasks")
	if err != nil {
		t.Fatal(err)
	}
	ttlOf := func(id string) string {
		t.Helper()
		m, err := stream.GetLastMsgForSubject(ctx, "$KV.ttl-tasks.task."+id)
		if err != nil {
			t.Fatal(err)
		}
		return m.Header.Get(jetstream.MsgTTLHeader)
	}
	rec := taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Status: taskstore.StatusWorking, TTL: 10 * time.Minute}
	created, _, err := s.Create(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ttlOf(rec.ID), (10*time.Minute + backplane.ExpiredRetention).String(); got != want {
		t.Fatalf("per-key TTL after Create: %q, want %q", got, want)
	}
	// An update keeps the TTL counted from creation, not from the write.
	clock.Advance(4 * time.Minute)
	created.StatusMessage = "later"
	if _, err := s.Update(ctx, created); err != nil {
		t.Fatal(err)
	}
	if got, want := ttlOf(rec.ID), (6*time.Minute + backplane.ExpiredRetention).String(); got != want {
		t.Fatalf("per-key TTL after Update: %q, want %q", got, want)
	}
	forever := taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Status: taskstore.StatusWorking}
	if _, _, err := s.Create(ctx, forever); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf(forever.ID); got != "" {
		t.Fatalf("per-key TTL of a task without a TTL: %q, want none", got)
	}
}

// TestTaskStoreWhileNATSIsDown: with the server gone, a call fails when
// its context ends, with the context's error, instead of waiting for the
// server; once the server is back (same storage) the same store serves
// the record it kept.
func TestTaskStoreWhileNATSIsDown(t *testing.T) {
	ns := startNATS(t)
	nc := ns.connect(t, nats.ReconnectWait(20*time.Millisecond), nats.MaxReconnects(-1))
	s := openStore(t, nc, "outage", taskstore.Options{})
	defer s.Close()
	rec := taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Status: taskstore.StatusWorking, TTL: time.Hour}
	if _, _, err := s.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	back := nc.StatusChanged(nats.CONNECTED)
	defer nc.RemoveStatusListener(back)

	ns.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Get(ctx, rec.ID)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("Get while NATS is down: %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Get while NATS is down took %v with a 300 ms context", took)
	}

	ns.start()
	select {
	case <-back:
	case <-time.After(20 * time.Second):
		t.Fatal("no reconnection in 20 s")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if got, err := s.Get(ctx2, rec.ID); err != nil || got.Revision != 1 {
		t.Fatalf("Get after NATS came back: revision %d, %v", got.Revision, err)
	}
}
