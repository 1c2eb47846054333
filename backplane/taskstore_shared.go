// This file is what the task store offers instances that share it while
// they run: a watch on the task records and the runners' leases.

package backplane

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/taskstore"
)

// leasePrefix is the key prefix of the runners' leases in the bucket.
const leasePrefix = "lease."

// plainOwner is a runner name that can stand in a bucket key as it is.
var plainOwner = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// taskWatchRetry is how long Watch waits before trying again to watch the
// bucket after the connection came back, while JetStream is not ready.
const taskWatchRetry = 100 * time.Millisecond

// Watch implements taskstore.Watcher with a watcher on the bucket's task
// keys: changed hears every record written after Watch returns, by any
// instance; removals are not reported. When the connection comes back
// after a loss (the NATS server restarted, say), the watcher is made
// again from the revision after the last one delivered, so what was
// written meanwhile is delivered then (the latest record of each task:
// the bucket keeps no older one).
func (s *TaskStore) Watch(ctx context.Context, changed func(taskstore.Record)) (stop func(), err error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	back := s.nc.StatusChanged(nats.CONNECTED)
	w, err := s.watchFrom(ctx, 0)
	if err != nil {
		s.nc.RemoveStatusListener(back)
		return nil, err
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer s.nc.RemoveStatusListener(back)
		defer func() { w.stop() }()
		var last uint64 // the last bucket revision delivered
		for {
			select {
			case <-quit:
				return
			case _, ok := <-back:
				if !ok {
					back = nil // the connection closed for good
					continue
				}
				w.stop()
				if w = s.rewatch(quit, last+1); w == nil {
					return
				}
			case e := <-w.updates():
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				last = max(last, e.Revision())
				r, err := taskstore.DecodeRecord(e.Value())
				if err != nil {
					s.logger.Warn("backplane: an unreadable task record in the bucket", "key", e.Key(), "error", err)
					continue
				}
				changed(r)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}, nil
}

// keyWatch is a watcher on the bucket's task keys and the context that
// keeps it.
type keyWatch struct {
	w      jetstream.KeyWatcher
	cancel context.CancelFunc
}

// updates is the watcher's channel; nil for none, which never delivers.
func (k *keyWatch) updates() <-chan jetstream.KeyValueEntry {
	if k == nil {
		return nil
	}
	return k.w.Updates()
}

// stop ends the watcher.
func (k *keyWatch) stop() {
	if k != nil {
		_ = k.w.Stop()
		k.cancel()
	}
}

// watchFrom watches the task keys from bucket revision rev, or for new
// writes only when rev is 0. The watcher lives until stopped; ctx bounds
// only its start.
func (s *TaskStore) watchFrom(ctx context.Context, rev uint64) (*keyWatch, error) {
	wctx, wcancel := context.WithCancel(context.Background())
	started := context.AfterFunc(ctx, wcancel)
	opt := jetstream.UpdatesOnly()
	if rev > 0 {
		opt = jetstream.ResumeFromRevision(rev)
	}
	w, err := s.kv.Watch(wctx, taskPrefix+"*", opt)
	if !started() {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		wcancel()
		if w != nil {
			_ = w.Stop()
		}
		return nil, wrapNATS("watching tasks", err)
	}
	return &keyWatch{w: w, cancel: wcancel}, nil
}

// rewatch makes the watcher again from revision rev, trying until it
// succeeds or quit is closed (then it returns nil).
func (s *TaskStore) rewatch(quit chan struct{}, rev uint64) *keyWatch {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		w, err := s.watchFrom(ctx, rev)
		cancel()
		if err == nil {
			return w
		}
		select {
		case <-quit:
			return nil
		case <-time.After(taskWatchRetry):
		}
	}
}

// HoldLease implements taskstore.Leaser: the lease is a key of the
// bucket whose per-key TTL is the lease duration ([WithLease]), written
// again every third of it.
func (s *TaskStore) HoldLease(ctx context.Context, owner string) (release func(), err error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	key := leaseKey(owner)
	if err := s.renew(ctx, key, owner); err != nil {
		return nil, wrapNATS("taking the lease of "+owner, err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				if s.closed.Load() {
					return
				}
				rctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
				if err := s.renew(rctx, key, owner); err != nil {
					s.logger.Warn("backplane: renewing a task runner's lease", "owner", owner, "error", err)
				}
				cancel()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
			pctx, cancel := context.WithTimeout(context.Background(), s.lease)
			defer cancel()
			_ = s.kv.Purge(pctx, key, jetstream.PurgeTTL(markerTTL))
		})
	}, nil
}

// LeaseAlive implements taskstore.Leaser.
func (s *TaskStore) LeaseAlive(ctx context.Context, owner string) (bool, error) {
	if err := s.usable(ctx); err != nil {
		return false, err
	}
	_, err := s.kv.Get(ctx, leaseKey(owner))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	case err != nil:
		return false, wrapNATS("reading the lease of "+owner, err)
	}
	return true, nil
}

// LeaseDuration implements taskstore.Leaser: the duration [WithLease]
// set.
func (s *TaskStore) LeaseDuration() time.Duration { return s.lease }

// renew writes owner's lease, expiring one lease duration from now.
func (s *TaskStore) renew(ctx context.Context, key, owner string) error {
	msg := &nats.Msg{Subject: "$KV." + s.kv.Bucket() + "." + key, Data: []byte(owner)}
	_, err := s.js.PublishMsg(ctx, msg, jetstream.WithMsgTTL(s.lease))
	return err
}

// leaseKey is the bucket key of owner's lease.
func leaseKey(owner string) string {
	if plainOwner.MatchString(owner) {
		return leasePrefix + owner
	}
	h := sha256.Sum256([]byte(owner))
	return leasePrefix + hex.EncodeToString(h[:])
}
