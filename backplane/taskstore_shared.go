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

// Watch implements taskstore.Watcher with a watcher on the bucket's task
// keys: changed hears every record written after Watch returns, by any
// instance; removals are not reported. Through a NATS outage the watcher
// resumes where it stopped, delivering the latest record of each task
// written meanwhile.
func (s *TaskStore) Watch(ctx context.Context, changed func(taskstore.Record)) (stop func(), err error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	// The watcher lives until stop, not until ctx ends: ctx bounds only
	// its start.
	wctx, wcancel := context.WithCancel(context.Background())
	started := context.AfterFunc(ctx, wcancel)
	w, err := s.kv.Watch(wctx, taskPrefix+"*", jetstream.UpdatesOnly())
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
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer wcancel()
		defer func() { _ = w.Stop() }()
		for {
			select {
			case <-quit:
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
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
