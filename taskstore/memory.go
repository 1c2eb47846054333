// This file is the in-memory store, the default: one mutex over a map of
// records and an index of idempotency keys.

package taskstore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// memoryStore is a Store that keeps records in memory, lost when the process
// ends. Create it with [NewMemory].
type memoryStore struct {
	opts Options

	mu      sync.Mutex
	closed  bool
	records map[string]*Record
	keys    map[idempotencyKey]string // principal and key → id
}

type idempotencyKey struct{ principal, key string }

// NewMemory returns an empty store that keeps records in memory, lost
// when the process ends.
func NewMemory(o Options) Store {
	return &memoryStore{opts: o.WithDefaults(), records: map[string]*Record{}, keys: map[idempotencyKey]string{}}
}

var _ Store = (*memoryStore)(nil)

// Create implements [Store].
func (m *memoryStore) Create(ctx context.Context, rec Record) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, false, ErrClosed
	}
	now := m.opts.now()
	if rec.IdempotencyKey != "" {
		if id, ok := m.keys[idempotencyKey{rec.Principal, rec.IdempotencyKey}]; ok {
			prev := m.records[id]
			if !prev.Expired(now) {
				if prev.Method != rec.Method || prev.Name != rec.Name {
					return Record{}, false, fmt.Errorf("%w: key %q created task %s for %s %s", ErrKeyReused, rec.IdempotencyKey, prev.ID, prev.Method, prev.Name)
				}
				return clone(*prev), false, nil
			}
		}
	}
	if err := PrepareCreate(&rec, m.opts); err != nil {
		return Record{}, false, err
	}
	if prev, ok := m.records[rec.ID]; ok {
		if !prev.Expired(now) {
			return Record{}, false, fmt.Errorf("%w: %s", ErrExists, rec.ID)
		}
		m.remove(prev)
	}
	cp := clone(rec)
	m.records[rec.ID] = &cp
	if rec.IdempotencyKey != "" {
		m.keys[idempotencyKey{rec.Principal, rec.IdempotencyKey}] = rec.ID
	}
	return clone(cp), true, nil
}

// Get implements [Store].
func (m *memoryStore) Get(ctx context.Context, id string) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, ErrClosed
	}
	r, ok := m.records[id]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if r.Expired(m.opts.now()) {
		return clone(*r), fmt.Errorf("%w: %s", ErrExpired, id)
	}
	return clone(*r), nil
}

// Update implements [Store].
func (m *memoryStore) Update(ctx context.Context, next Record) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, ErrClosed
	}
	cur, ok := m.records[next.ID]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, next.ID)
	}
	now := m.opts.now()
	if cur.Expired(now) {
		return Record{}, fmt.Errorf("%w: %s", ErrExpired, next.ID)
	}
	if err := PrepareUpdate(cur, &next, m.opts); err != nil {
		return Record{}, err
	}
	cp := clone(next)
	m.records[next.ID] = &cp
	return clone(cp), nil
}

// Unfinished implements [Store].
func (m *memoryStore) Unfinished(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	now := m.opts.now()
	var out []Record
	for _, r := range m.records {
		if !r.Status.Terminal() && !r.Expired(now) {
			out = append(out, clone(*r))
		}
	}
	SortOldestFirst(out)
	return out, nil
}

// Expire implements [Store].
func (m *memoryStore) Expire(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	now := m.opts.now()
	n := 0
	for _, r := range m.records {
		if r.Expired(now) {
			m.remove(r)
			n++
		}
	}
	return n, nil
}

// Close implements [Store].
func (m *memoryStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.records, m.keys = nil, nil
	return nil
}

// remove deletes r and its idempotency key; m.mu is held.
func (m *memoryStore) remove(r *Record) {
	delete(m.records, r.ID)
	k := idempotencyKey{r.Principal, r.IdempotencyKey}
	if r.IdempotencyKey != "" && m.keys[k] == r.ID {
		delete(m.keys, k)
	}
}

// clone copies the record's JSON values, so the store shares no memory
// with its callers.
func clone(r Record) Record {
	for _, v := range r.values() {
		if *v != nil {
			*v = bytes.Clone(*v)
		}
	}
	return r
}

// SortOldestFirst orders records by creation time, then id: the order
// Unfinished returns.
func SortOldestFirst(recs []Record) {
	slices.SortFunc(recs, func(a, b Record) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
