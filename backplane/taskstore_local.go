// This file is the task store of an instance started with
// WithLocalOnlyStart: its bucket is opened by the first call made once
// NATS is reachable, and every call before fails with ErrUnavailable.

package backplane

import (
	"context"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/snodo-go/snodo/taskstore"
)

// newLocalStartTaskStore returns a TaskStore whose bucket opens later.
func newLocalStartTaskStore(nc *nats.Conn, c config, o taskstore.Options) (*TaskStore, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return &TaskStore{nc: nc, js: js, kv: &laterBucket{nc: nc, js: js, name: c.name}, opts: o.WithDefaults(), lease: c.lease, logger: c.logger}, nil
}

// laterBucket is the task bucket, opened at the first call that finds
// NATS reachable. It implements the methods TaskStore calls; the others
// of jetstream.KeyValue are those of the opened bucket.
type laterBucket struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	name string

	mu sync.Mutex
	jetstream.KeyValue
}

// open returns the bucket, opening it if NATS is reachable now.
func (b *laterBucket) open(ctx context.Context) (jetstream.KeyValue, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.KeyValue != nil {
		return b.KeyValue, nil
	}
	if _, err := openJetStream(ctx, b.nc); err != nil {
		return nil, fmt.Errorf("%w (the task store started without NATS and has not reached it yet)", err)
	}
	kv, err := openTaskBucket(ctx, b.js, b.name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	b.KeyValue = kv
	return kv, nil
}

// Bucket is the bucket's name, known before it opens.
func (b *laterBucket) Bucket() string { return b.name + "-tasks" }

func (b *laterBucket) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	return kv.Get(ctx, key)
}

func (b *laterBucket) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return 0, err
	}
	return kv.Create(ctx, key, value, opts...)
}

func (b *laterBucket) Purge(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	kv, err := b.open(ctx)
	if err != nil {
		return err
	}
	return kv.Purge(ctx, key, opts...)
}

func (b *laterBucket) ListKeysFiltered(ctx context.Context, filters ...string) (jetstream.KeyLister, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	return kv.ListKeysFiltered(ctx, filters...)
}

func (b *laterBucket) Watch(ctx context.Context, keys string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	return kv.Watch(ctx, keys, opts...)
}
