// Package storetest is the contract suite every taskstore.Store must pass:
// idempotent creation, compare-and-set on the revision, transitions that
// only go forward, immutable fields, bounded values, TTL expiry, the
// listing a restarted process recovers from, and, for a durable store,
// that all of it survives closing and opening the storage again.
//
// A store's own tests call [Run]:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, storetest.Harness{
//			Open: func(t *testing.T, o taskstore.Options) taskstore.Store { return taskstore.NewMemory(o) },
//		})
//	}
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

// Harness opens the store under test.
type Harness struct {
	// Open returns a new, empty store using o. The suite closes it.
	Open func(t *testing.T, o taskstore.Options) taskstore.Store
	// Reopen, when set, closes s and opens the same storage again using o.
	// The suite then also checks that records survive it (durable stores).
	Reopen func(t *testing.T, s taskstore.Store, o taskstore.Options) taskstore.Store
}

// maxValue is the value limit the suite configures, small so that the
// oversized cases stay cheap.
const maxValue = 4096

// Run runs the contract suite against the store h opens.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	for _, c := range []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CreateRefusesTakenID", testCreateRefusesTakenID},
		{"CreateRefusesInvalidRecords", testCreateRefusesInvalid},
		{"IdempotencyKey", testIdempotencyKey},
		{"ConcurrentCreateWithOneKey", testConcurrentCreate},
		{"UpdateIsCompareAndSet", testUpdateCAS},
		{"ConcurrentClaimHasOneWinner", testConcurrentClaim},
		{"TransitionsOnlyGoForward", testForwardOnly},
		{"ImmutableFields", testImmutable},
		{"PayloadFitsStatus", testPayloadFitsStatus},
		{"BoundedValues", testBoundedValues},
		{"TTLExpiry", testTTL},
		{"Unfinished", testUnfinished},
		{"UnknownTask", testUnknown},
		{"ValuesDoNotAlias", testNoAlias},
		{"Recover", testRecover},
		{"Closed", testClosed},
		{"Reopen", testReopen},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &env{h: h, clock: NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))}
			e.opts = taskstore.Options{Now: e.clock.Now, MaxValueBytes: maxValue}
			e.s = h.Open(t, e.opts)
			t.Cleanup(func() { _ = e.s.Close() })
			c.fn(t, e)
		})
	}
}

// Clock is a settable clock for Options.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads t until it is moved.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type env struct {
	h     Harness
	s     taskstore.Store
	opts  taskstore.Options
	clock *Clock
}

var ctx = context.Background()

// working returns a valid new record in the working status.
func working() taskstore.Record {
	return taskstore.Record{
		ID:           taskstore.NewID(),
		Principal:    "alice",
		Method:       "tools/call",
		Name:         "slow_compute",
		Params:       json.RawMessage(`{"name":"slow_compute","arguments":{"seconds":5}}`),
		Status:       taskstore.StatusWorking,
		TTL:          time.Hour,
		PollInterval: 250 * time.Millisecond,
		Deadline:     time.Date(2026, 7, 28, 12, 5, 0, 0, time.UTC),
		Owner:        "runner-1",
	}
}

func (e *env) create(t *testing.T, r taskstore.Record) taskstore.Record {
	t.Helper()
	got, created, err := e.s.Create(ctx, r)
	if err != nil || !created {
		t.Fatalf("Create(%s): created %v, %v", r.ID, created, err)
	}
	return got
}

func (e *env) get(t *testing.T, id string) taskstore.Record {
	t.Helper()
	r, err := e.s.Get(ctx, id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return r
}

func (e *env) update(t *testing.T, r taskstore.Record) taskstore.Record {
	t.Helper()
	got, err := e.s.Update(ctx, r)
	if err != nil {
		t.Fatalf("Update(%s, revision %d, %s): %v", r.ID, r.Revision, r.Status, err)
	}
	return got
}

// same fails t unless a and b hold the same task state.
func same(t *testing.T, what string, a, b taskstore.Record) {
	t.Helper()
	if d := diff(a, b); d != "" {
		t.Fatalf("%s: %s", what, d)
	}
}

func diff(a, b taskstore.Record) string {
	var d []string
	str := func(name, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %q != %q", name, x, y))
		}
	}
	raw := func(name string, x, y json.RawMessage) {
		if !bytes.Equal(x, y) {
			d = append(d, fmt.Sprintf("%s %s != %s", name, x, y))
		}
	}
	tm := func(name string, x, y time.Time) {
		if !x.Equal(y) {
			d = append(d, fmt.Sprintf("%s %v != %v", name, x, y))
		}
	}
	str("id", a.ID, b.ID)
	str("principal", a.Principal, b.Principal)
	str("idempotencyKey", a.IdempotencyKey, b.IdempotencyKey)
	str("method", a.Method, b.Method)
	str("name", a.Name, b.Name)
	raw("params", a.Params, b.Params)
	str("status", string(a.Status), string(b.Status))
	str("statusMessage", a.StatusMessage, b.StatusMessage)
	raw("result", a.Result, b.Result)
	raw("error", a.Error, b.Error)
	raw("inputRequests", a.InputRequests, b.InputRequests)
	raw("inputResponses", a.InputResponses, b.InputResponses)
	raw("state", a.State, b.State)
	tm("createdAt", a.CreatedAt, b.CreatedAt)
	tm("updatedAt", a.UpdatedAt, b.UpdatedAt)
	tm("deadline", a.Deadline, b.Deadline)
	str("owner", a.Owner, b.Owner)
	if a.Resumable != b.Resumable || a.TTL != b.TTL || a.PollInterval != b.PollInterval || a.Revision != b.Revision {
		d = append(d, fmt.Sprintf("resumable/ttl/pollInterval/revision %v/%v/%v/%d != %v/%v/%v/%d",
			a.Resumable, a.TTL, a.PollInterval, a.Revision, b.Resumable, b.TTL, b.PollInterval, b.Revision))
	}
	return strings.Join(d, "; ")
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got %v, want %v", what, err, target)
	}
}
