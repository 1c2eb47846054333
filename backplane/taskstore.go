// This file is the task store on a JetStream key-value bucket, shared by
// every instance that opens the same bucket.

package backplane

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/taskstore"
)

// ExpiredRetention is how long the bucket keeps a record after its TTL
// has passed, so that it reads as taskstore.ErrExpired (not
// taskstore.ErrNotFound) meanwhile; then the bucket's per-key TTL removes
// it even when no instance calls Expire.
const ExpiredRetention = time.Minute

// markerTTL is how long the bucket keeps the marker a removed key leaves.
const markerTTL = time.Minute

// maxCreateAttempts bounds the retries of a Create whose idempotency key
// another Create claimed at the same moment.
const maxCreateAttempts = 8

// Key prefixes: one record per task id, one entry per idempotency key
// (principal and key, hashed: a key may hold any character).
const (
	taskPrefix = "task."
	keyPrefix  = "key."
)

// TaskStore is a taskstore.Store kept in the JetStream key-value bucket
// KV_<name>-tasks (see [WithName]). Every instance that opens the same
// bucket sees the same tasks.
//
// Each record is one key holding its taskstore.EncodeRecord form. Update
// is a compare-and-set on the key's revision in the bucket, so of two
// instances that read the same record only the first write lands; the
// other gets taskstore.ErrConflict. A record with a TTL is written with a
// per-key TTL of what remains of it plus [ExpiredRetention], so the
// bucket removes it on its own. The record's own TTL, measured with
// taskstore.Options.Now, decides when it reads as expired.
//
// A record is bounded by the NATS server's max_payload as well as by
// taskstore.Options.MaxValueBytes: a larger one is taskstore.ErrTooLarge.
// A call that NATS does not answer fails when ctx ends, or after the
// JetStream client's default timeout when ctx has no deadline.
type TaskStore struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	opts   taskstore.Options
	lease  time.Duration
	logger *slog.Logger
	closed atomic.Bool
}

var (
	_ taskstore.Store   = (*TaskStore)(nil)
	_ taskstore.Watcher = (*TaskStore)(nil)
	_ taskstore.Leaser  = (*TaskStore)(nil)
)

// NewTaskStore opens the task store on nc, creating its bucket (file
// storage, one replica) when it does not exist. A bucket created
// beforehand, with more replicas for example, is used as it is if it
// allows per-key TTLs. It fails, wrapping [ErrUnavailable], when nc is
// not connected (unless [WithLocalOnlyStart] is given) or its server has
// no JetStream.
func NewTaskStore(ctx context.Context, nc *nats.Conn, o taskstore.Options, opts ...Option) (*TaskStore, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	js, err := openJetStream(ctx, nc)
	if err != nil {
		if !c.mayStartLocal(nc) {
			return nil, err
		}
		return newLocalStartTaskStore(nc, c, o)
	}
	kv, err := openTaskBucket(ctx, js, c.name)
	if err != nil {
		return nil, err
	}
	return &TaskStore{nc: nc, js: js, kv: kv, opts: o.WithDefaults(), lease: c.lease, logger: c.logger}, nil
}

// openTaskBucket opens the bucket KV_<name>-tasks, creating it when it
// does not exist, and checks that it allows per-key TTLs.
func openTaskBucket(ctx context.Context, js jetstream.JetStream, name string) (jetstream.KeyValue, error) {
	bucket := name + "-tasks"
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         bucket,
		Description:    "tasks of the MCP server " + name,
		History:        1,
		Storage:        jetstream.FileStorage,
		LimitMarkerTTL: markerTTL,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = js.KeyValue(ctx, bucket)
	}
	if err != nil {
		return nil, fmt.Errorf("backplane: opening the bucket %s: %w", bucket, err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("backplane: reading the bucket %s: %w", bucket, err)
	}
	if st.LimitMarkerTTL() <= 0 {
		return nil, fmt.Errorf("backplane: the bucket %s does not allow per-key TTLs (create it with a limit marker TTL)", bucket)
	}
	return kv, nil
}

// Create implements taskstore.Store.
func (s *TaskStore) Create(ctx context.Context, rec taskstore.Record) (taskstore.Record, bool, error) {
	if err := s.usable(ctx); err != nil {
		return taskstore.Record{}, false, err
	}
	if rec.IdempotencyKey == "" {
		r := rec
		if err := s.createRecord(ctx, &r); err != nil {
			return taskstore.Record{}, false, err
		}
		return r, true, nil
	}
	k := idempotencyKey(rec.Principal, rec.IdempotencyKey)
	for range maxCreateAttempts {
		prev, keyRev, err := s.byKey(ctx, k)
		if err != nil {
			return taskstore.Record{}, false, err
		}
		if prev != nil {
			if prev.Method != rec.Method || prev.Name != rec.Name {
				return taskstore.Record{}, false, fmt.Errorf("%w: key %q created task %s for %s %s", taskstore.ErrKeyReused, rec.IdempotencyKey, prev.ID, prev.Method, prev.Name)
			}
			return *prev, false, nil
		}
		// The record is written before the key names it, so a key always
		// names a record that exists; a Create that loses the key to
		// another removes its record and returns the winner's.
		r := rec
		if err := s.createRecord(ctx, &r); err != nil {
			return taskstore.Record{}, false, err
		}
		err = s.write(ctx, k, []byte(r.ID), keyRev, s.keepFor(&r))
		if err == nil {
			return r, true, nil
		}
		s.remove(context.WithoutCancel(ctx), r.ID, 0)
		if !isConflict(err) {
			return taskstore.Record{}, false, fmt.Errorf("backplane: claiming idempotency key %q: %w", rec.IdempotencyKey, err)
		}
	}
	return taskstore.Record{}, false, fmt.Errorf("backplane: idempotency key %q changed hands %d times during one Create", rec.IdempotencyKey, maxCreateAttempts)
}

// createRecord checks and stores a new record, replacing an expired one
// with the same id.
func (s *TaskStore) createRecord(ctx context.Context, r *taskstore.Record) error {
	if err := taskstore.PrepareCreate(r, s.opts); err != nil {
		return err
	}
	b, err := s.encode(r)
	if err != nil {
		return err
	}
	key := taskPrefix + r.ID
	var kopts []jetstream.KVCreateOpt
	if ttl := s.keepFor(r); ttl > 0 {
		kopts = append(kopts, jetstream.KeyTTL(ttl))
	}
	_, err = s.kv.Create(ctx, key, b, kopts...)
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return wrapNATS("creating task "+r.ID, err)
	}
	prev, rev, err := s.read(ctx, r.ID)
	switch {
	case errors.Is(err, taskstore.ErrNotFound):
		rev = 0 // removed since: create it again
	case err != nil:
		return err
	case !prev.Expired(s.opts.Now()):
		return fmt.Errorf("%w: %s", taskstore.ErrExists, r.ID)
	}
	if err := s.write(ctx, key, b, rev, s.keepFor(r)); err != nil {
		if isConflict(err) {
			return fmt.Errorf("%w: %s (written by another instance meanwhile)", taskstore.ErrExists, r.ID)
		}
		return wrapNATS("creating task "+r.ID, err)
	}
	return nil
}

// byKey returns the live record the idempotency key names, or nil, and
// the revision of the key's entry (0 when there is none).
func (s *TaskStore) byKey(ctx context.Context, k string) (*taskstore.Record, uint64, error) {
	e, err := s.kv.Get(ctx, k)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, wrapNATS("reading an idempotency key", err)
	}
	prev, _, err := s.read(ctx, string(e.Value()))
	switch {
	case errors.Is(err, taskstore.ErrNotFound):
		return nil, e.Revision(), nil
	case err != nil:
		return nil, 0, err
	case prev.Expired(s.opts.Now()):
		return nil, e.Revision(), nil
	}
	return &prev, e.Revision(), nil
}

// Get implements taskstore.Store.
func (s *TaskStore) Get(ctx context.Context, id string) (taskstore.Record, error) {
	if err := s.usable(ctx); err != nil {
		return taskstore.Record{}, err
	}
	r, _, err := s.read(ctx, id)
	if err != nil {
		return taskstore.Record{}, err
	}
	if r.Expired(s.opts.Now()) {
		return r, fmt.Errorf("%w: %s", taskstore.ErrExpired, id)
	}
	return r, nil
}

// Update implements taskstore.Store.
func (s *TaskStore) Update(ctx context.Context, next taskstore.Record) (taskstore.Record, error) {
	if err := s.usable(ctx); err != nil {
		return taskstore.Record{}, err
	}
	cur, rev, err := s.read(ctx, next.ID)
	if err != nil {
		return taskstore.Record{}, err
	}
	if cur.Expired(s.opts.Now()) {
		return taskstore.Record{}, fmt.Errorf("%w: %s", taskstore.ErrExpired, next.ID)
	}
	if err := taskstore.PrepareUpdate(&cur, &next, s.opts); err != nil {
		return taskstore.Record{}, err
	}
	b, err := s.encode(&next)
	if err != nil {
		return taskstore.Record{}, err
	}
	if err := s.write(ctx, taskPrefix+next.ID, b, rev, s.keepFor(&next)); err != nil {
		if isConflict(err) {
			return taskstore.Record{}, fmt.Errorf("%w: task %s was written by another instance after revision %d was read", taskstore.ErrConflict, next.ID, cur.Revision)
		}
		return taskstore.Record{}, wrapNATS("updating task "+next.ID, err)
	}
	return next, nil
}

// Unfinished implements taskstore.Store.
func (s *TaskStore) Unfinished(ctx context.Context) ([]taskstore.Record, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	now := s.opts.Now()
	var out []taskstore.Record
	err := s.each(ctx, func(r taskstore.Record, _ uint64) error {
		if !r.Status.Terminal() && !r.Expired(now) {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	taskstore.SortOldestFirst(out)
	return out, nil
}

// Expire implements taskstore.Store. A record another instance writes
// while Expire runs is left for the next call.
func (s *TaskStore) Expire(ctx context.Context) (int, error) {
	if err := s.usable(ctx); err != nil {
		return 0, err
	}
	now := s.opts.Now()
	n := 0
	err := s.each(ctx, func(r taskstore.Record, rev uint64) error {
		if !r.Expired(now) {
			return nil
		}
		err := s.kv.Purge(ctx, taskPrefix+r.ID, jetstream.LastRevision(rev), jetstream.PurgeTTL(markerTTL))
		switch {
		case isConflict(err):
			return nil
		case err != nil:
			return wrapNATS("removing task "+r.ID, err)
		}
		n++
		if r.IdempotencyKey != "" {
			s.releaseKey(ctx, idempotencyKey(r.Principal, r.IdempotencyKey), r.ID)
		}
		return nil
	})
	return n, err
}

// Close implements taskstore.Store. It leaves the NATS connection, which
// the application owns, open.
func (s *TaskStore) Close() error {
	s.closed.Store(true)
	return nil
}

// usable reports ErrClosed after Close, or ctx's error.
func (s *TaskStore) usable(ctx context.Context) error {
	if s.closed.Load() {
		return taskstore.ErrClosed
	}
	return ctx.Err()
}

// read returns the record with this id and its revision in the bucket.
func (s *TaskStore) read(ctx context.Context, id string) (taskstore.Record, uint64, error) {
	if !taskstore.ValidID(id) {
		return taskstore.Record{}, 0, fmt.Errorf("%w: %s", taskstore.ErrNotFound, id)
	}
	e, err := s.kv.Get(ctx, taskPrefix+id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return taskstore.Record{}, 0, fmt.Errorf("%w: %s", taskstore.ErrNotFound, id)
	}
	if err != nil {
		return taskstore.Record{}, 0, wrapNATS("reading task "+id, err)
	}
	r, err := taskstore.DecodeRecord(e.Value())
	if err != nil {
		return taskstore.Record{}, 0, fmt.Errorf("backplane: task %s in the bucket: %w", id, err)
	}
	return r, e.Revision(), nil
}

// each calls fn with every record in the bucket.
func (s *TaskStore) each(ctx context.Context, fn func(taskstore.Record, uint64) error) error {
	keys, err := s.kv.ListKeysFiltered(ctx, taskPrefix+"*")
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil
		}
		return wrapNATS("listing tasks", err)
	}
	var ids []string
	for k := range keys.Keys() {
		ids = append(ids, k[len(taskPrefix):])
	}
	if err := keys.Stop(); err != nil && !errors.Is(err, nats.ErrBadSubscription) {
		return wrapNATS("listing tasks", err)
	}
	for _, id := range ids {
		r, rev, err := s.read(ctx, id)
		if errors.Is(err, taskstore.ErrNotFound) {
			continue // removed since it was listed
		}
		if err != nil {
			return err
		}
		if err := fn(r, rev); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes the record with this id, at revision rev (0: any).
func (s *TaskStore) remove(ctx context.Context, id string, rev uint64) {
	opts := []jetstream.KVDeleteOpt{jetstream.PurgeTTL(markerTTL)}
	if rev > 0 {
		opts = append(opts, jetstream.LastRevision(rev))
	}
	_ = s.kv.Purge(ctx, taskPrefix+id, opts...)
}

// releaseKey removes the idempotency key's entry if it still names id.
func (s *TaskStore) releaseKey(ctx context.Context, k, id string) {
	e, err := s.kv.Get(ctx, k)
	if err != nil || string(e.Value()) != id {
		return
	}
	_ = s.kv.Purge(ctx, k, jetstream.LastRevision(e.Revision()), jetstream.PurgeTTL(markerTTL))
}

// write stores value under key if the key's revision in the bucket is
// still rev, with a per-key TTL (0: none). kv.Update takes no TTL, so the
// write is the publish it makes, with the TTL header added.
func (s *TaskStore) write(ctx context.Context, key string, value []byte, rev uint64, ttl time.Duration) error {
	if rev == 0 {
		var kopts []jetstream.KVCreateOpt
		if ttl > 0 {
			kopts = append(kopts, jetstream.KeyTTL(ttl))
		}
		_, err := s.kv.Create(ctx, key, value, kopts...)
		return err
	}
	popts := []jetstream.PublishOpt{jetstream.WithExpectLastSequencePerSubject(rev)}
	if ttl > 0 {
		popts = append(popts, jetstream.WithMsgTTL(ttl))
	}
	_, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: "$KV." + s.kv.Bucket() + "." + key, Data: value}, popts...)
	return err
}

// keepFor is the per-key TTL for r: what remains of its TTL plus
// ExpiredRetention, or 0 for a record kept without limit.
func (s *TaskStore) keepFor(r *taskstore.Record) time.Duration {
	if r.TTL <= 0 {
		return 0
	}
	return max(r.ExpiresAt().Sub(s.opts.Now()), 0) + ExpiredRetention
}

// encode returns r's bytes, refusing what the NATS server cannot carry.
func (s *TaskStore) encode(r *taskstore.Record) ([]byte, error) {
	b, err := taskstore.EncodeRecord(r)
	if err != nil {
		return nil, err
	}
	if limit := s.nc.MaxPayload(); limit > 0 && int64(len(b)) > limit-1024 {
		return nil, fmt.Errorf("%w: task %s is %d bytes encoded, more than the NATS server's max_payload (%d) allows", taskstore.ErrTooLarge, r.ID, len(b), limit)
	}
	return b, nil
}

// idempotencyKey is the bucket key of a principal's idempotency key.
func idempotencyKey(principal, key string) string {
	h := sha256.New()
	h.Write([]byte(principal))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return keyPrefix + hex.EncodeToString(h.Sum(nil))
}

// isConflict reports whether err is JetStream refusing a write because
// the key's revision moved.
func isConflict(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
	}
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// wrapNATS names what failed; nil stays nil.
func wrapNATS(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("backplane: %s: %w", what, err)
}
