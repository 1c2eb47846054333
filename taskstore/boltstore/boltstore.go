// Package boltstore is a taskstore.Store kept in one file on one machine,
// through go.etcd.io/bbolt: every write is one transaction synced to disk
// before it returns, so a task a server reported created survives the
// process being killed, and only one process can hold the file at a time
// (an exclusive lock), which is what lets taskstore.Recover settle the
// tasks a stopped process left.
//
// The file holds four buckets: the records by id (in the form of
// taskstore.EncodeRecord), the idempotency keys, the ids of unfinished
// tasks (what Unfinished lists without reading finished ones), and an
// index by expiry time (what Expire walks).
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/snodo-go/snodo/taskstore"
)

// lockTimeout is how long Open waits for another process to release the
// file before it fails.
const lockTimeout = time.Second

var (
	bucketTasks      = []byte("tasks")
	bucketKeys       = []byte("keys")
	bucketUnfinished = []byte("unfinished")
	bucketExpiry     = []byte("expiry")
)

// store is a taskstore.Store in a bbolt file.
type store struct {
	db     *bbolt.DB
	opts   taskstore.Options
	closed atomic.Bool
}

var _ taskstore.Store = (*store)(nil)

// Open opens the store file at path, a taskstore.Store in one bbolt
// file, creating it (mode 0600) when it does not exist. A file another process holds is an error once one second has
// passed.
func Open(path string, o taskstore.Options) (taskstore.Store, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("boltstore: %s is in use by another process (its lock was not released within %v)", path, lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: opening %s: %w", path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketTasks, bucketKeys, bucketUnfinished, bucketExpiry} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: preparing %s: %w", path, err)
	}
	return &store{db: db, opts: o.WithDefaults()}, nil
}

// Create implements taskstore.Store.
func (s *store) Create(ctx context.Context, rec taskstore.Record) (stored taskstore.Record, created bool, err error) {
	err = s.update(ctx, func(tx *bbolt.Tx) error {
		now := s.opts.Now()
		if rec.IdempotencyKey != "" {
			if id := tx.Bucket(bucketKeys).Get(keyIndex(rec.Principal, rec.IdempotencyKey)); id != nil {
				prev, err := read(tx, string(id))
				if err != nil {
					return err
				}
				if prev != nil && !prev.Expired(now) {
					if prev.Method != rec.Method || prev.Name != rec.Name {
						return fmt.Errorf("%w: key %q created task %s for %s %s", taskstore.ErrKeyReused, rec.IdempotencyKey, prev.ID, prev.Method, prev.Name)
					}
					stored = *prev
					return nil
				}
			}
		}
		if err := taskstore.PrepareCreate(&rec, s.opts); err != nil {
			return err
		}
		prev, err := read(tx, rec.ID)
		if err != nil {
			return err
		}
		if prev != nil {
			if !prev.Expired(now) {
				return fmt.Errorf("%w: %s", taskstore.ErrExists, rec.ID)
			}
			if err := remove(tx, prev); err != nil {
				return err
			}
		}
		if err := write(tx, nil, &rec); err != nil {
			return err
		}
		stored, created = rec, true
		return nil
	})
	if err != nil {
		return taskstore.Record{}, false, err
	}
	return stored, created, nil
}

// Get implements taskstore.Store.
func (s *store) Get(ctx context.Context, id string) (taskstore.Record, error) {
	var r *taskstore.Record
	err := s.view(ctx, func(tx *bbolt.Tx) (err error) {
		r, err = read(tx, id)
		return err
	})
	switch {
	case err != nil:
		return taskstore.Record{}, err
	case r == nil:
		return taskstore.Record{}, fmt.Errorf("%w: %s", taskstore.ErrNotFound, id)
	case r.Expired(s.opts.Now()):
		return *r, fmt.Errorf("%w: %s", taskstore.ErrExpired, id)
	}
	return *r, nil
}

// Update implements taskstore.Store.
func (s *store) Update(ctx context.Context, next taskstore.Record) (taskstore.Record, error) {
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		cur, err := read(tx, next.ID)
		switch {
		case err != nil:
			return err
		case cur == nil:
			return fmt.Errorf("%w: %s", taskstore.ErrNotFound, next.ID)
		case cur.Expired(s.opts.Now()):
			return fmt.Errorf("%w: %s", taskstore.ErrExpired, next.ID)
		}
		if err := taskstore.PrepareUpdate(cur, &next, s.opts); err != nil {
			return err
		}
		return write(tx, cur, &next)
	})
	if err != nil {
		return taskstore.Record{}, err
	}
	return next, nil
}

// Unfinished implements taskstore.Store.
func (s *store) Unfinished(ctx context.Context) ([]taskstore.Record, error) {
	var out []taskstore.Record
	now := s.opts.Now()
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketUnfinished).ForEach(func(id, _ []byte) error {
			r, err := read(tx, string(id))
			if err != nil {
				return err
			}
			if r != nil && !r.Status.Terminal() && !r.Expired(now) {
				out = append(out, *r)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	taskstore.SortOldestFirst(out)
	return out, nil
}

// Expire implements taskstore.Store.
func (s *store) Expire(ctx context.Context) (int, error) {
	n := 0
	now := s.opts.Now()
	limit := expiryPrefix(now)
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		n = 0
		var due [][]byte
		c := tx.Bucket(bucketExpiry).Cursor()
		for k, _ := c.First(); k != nil && bytes.Compare(k[:8], limit) <= 0; k, _ = c.Next() {
			due = append(due, bytes.Clone(k))
		}
		for _, k := range due {
			r, err := read(tx, string(k[8:]))
			if err != nil {
				return err
			}
			if r == nil || !r.Expired(now) {
				// A stale index entry: drop it.
				if err := tx.Bucket(bucketExpiry).Delete(k); err != nil {
					return err
				}
				continue
			}
			if err := remove(tx, r); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// Close implements taskstore.Store.
func (s *store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.db.Close()
}

func (s *store) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.mapErr(s.db.Update(fn))
}

func (s *store) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.mapErr(s.db.View(fn))
}

func (s *store) ready(ctx context.Context) error {
	if s.closed.Load() {
		return taskstore.ErrClosed
	}
	return ctx.Err()
}

func (s *store) mapErr(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return taskstore.ErrClosed
	}
	return err
}

// read returns the record with this id, or nil.
func read(tx *bbolt.Tx, id string) (*taskstore.Record, error) {
	b := tx.Bucket(bucketTasks).Get([]byte(id))
	if b == nil {
		return nil, nil
	}
	r, err := taskstore.DecodeRecord(b)
	if err != nil {
		return nil, fmt.Errorf("boltstore: task %s: %w", id, err)
	}
	return &r, nil
}

// write stores next, keeping the indexes in step with prev, the record it
// replaces (nil for a new one).
func write(tx *bbolt.Tx, prev, next *taskstore.Record) error {
	enc, err := taskstore.EncodeRecord(next)
	if err != nil {
		return err
	}
	id := []byte(next.ID)
	if err := tx.Bucket(bucketTasks).Put(id, enc); err != nil {
		return err
	}
	if prev == nil && next.IdempotencyKey != "" {
		if err := tx.Bucket(bucketKeys).Put(keyIndex(next.Principal, next.IdempotencyKey), id); err != nil {
			return err
		}
	}
	if next.Status.Terminal() {
		if err := tx.Bucket(bucketUnfinished).Delete(id); err != nil {
			return err
		}
	} else if err := tx.Bucket(bucketUnfinished).Put(id, nil); err != nil {
		return err
	}
	if prev != nil && !prev.ExpiresAt().Equal(next.ExpiresAt()) {
		if err := tx.Bucket(bucketExpiry).Delete(expiryKey(prev)); err != nil {
			return err
		}
	}
	if !next.ExpiresAt().IsZero() {
		return tx.Bucket(bucketExpiry).Put(expiryKey(next), nil)
	}
	return nil
}

// remove deletes r and its index entries.
func remove(tx *bbolt.Tx, r *taskstore.Record) error {
	id := []byte(r.ID)
	for _, del := range []struct {
		bucket, key []byte
	}{{bucketTasks, id}, {bucketUnfinished, id}} {
		if err := tx.Bucket(del.bucket).Delete(del.key); err != nil {
			return err
		}
	}
	if !r.ExpiresAt().IsZero() {
		if err := tx.Bucket(bucketExpiry).Delete(expiryKey(r)); err != nil {
			return err
		}
	}
	if r.IdempotencyKey != "" {
		k := keyIndex(r.Principal, r.IdempotencyKey)
		if bytes.Equal(tx.Bucket(bucketKeys).Get(k), id) {
			return tx.Bucket(bucketKeys).Delete(k)
		}
	}
	return nil
}

// keyIndex is the keys bucket's key: the principal's length, the
// principal, then the idempotency key, so no two pairs share one.
func keyIndex(principal, key string) []byte {
	b := binary.AppendUvarint(nil, uint64(len(principal)))
	b = append(b, principal...)
	return append(b, key...)
}

// expiryKey is the expiry bucket's key: the expiry time, eight bytes
// big-endian nanoseconds since 1970 (so keys sort by time), then the id.
func expiryKey(r *taskstore.Record) []byte {
	return append(expiryPrefix(r.ExpiresAt()), r.ID...)
}

func expiryPrefix(t time.Time) []byte {
	ns := t.UnixNano()
	if ns < 0 {
		ns = 0
	}
	return binary.BigEndian.AppendUint64(nil, uint64(ns))
}
