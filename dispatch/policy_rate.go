// A component's rate limit: a token bucket per key
// (golang.org/x/time/rate), a bounded number of keys, idle keys
// forgotten.

package dispatch

import (
	"container/list"
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// rateLimiter holds a component's buckets, most recently used first.
type rateLimiter struct {
	limit RateLimit
	now   func() time.Time
	// idle is how long after its last call a bucket is full again; it is
	// then forgotten, which changes nothing for its key.
	idle time.Duration

	mu      sync.Mutex
	buckets map[any]*list.Element // of *bucket
	lru     list.List             // front: most recently used

	admitted, refused atomic.Int64
}

// bucket is one key's token bucket.
type bucket struct {
	key  any
	lim  *rate.Limiter
	last time.Time
}

func newRateLimiter(l RateLimit, now func() time.Time) *rateLimiter {
	if now == nil {
		now = time.Now
	}
	idle := time.Duration(float64(l.Burst) / float64(l.Rate) * float64(time.Second))
	return &rateLimiter{limit: l, now: now, idle: idle, buckets: map[any]*list.Element{}}
}

// take spends a token of key's bucket. It returns 0, true and a refund
// that gives the token back (for a call a later policy refuses), or how
// long until a token is there and false (keys is set when the refusal is
// for want of room for a new key).
func (r *rateLimiter) take(key any) (retry time.Duration, ok, keys bool, refund func()) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetIdleLocked(now)
	var b *bucket
	if el, found := r.buckets[key]; found {
		b = el.Value.(*bucket)
		r.lru.MoveToFront(el)
	} else {
		if len(r.buckets) >= r.limit.MaxKeys { // mutation: policy-bounds-rate-keys
			oldest := r.lru.Back().Value.(*bucket)
			r.refused.Add(1)
			return oldest.last.Add(r.idle).Sub(now), false, true, nil
		}
		b = &bucket{key: key, lim: rate.NewLimiter(r.limit.Rate, r.limit.Burst)}
		r.buckets[key] = r.lru.PushFront(b)
	}
	b.last = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		r.refused.Add(1)
		return d, false, false, nil
	}
	r.admitted.Add(1)
	return 0, true, false, func() { res.CancelAt(r.now()) }
}

// forgetIdleLocked drops the buckets full again by now, least recently
// used first.
func (r *rateLimiter) forgetIdleLocked(now time.Time) {
	for el := r.lru.Back(); el != nil; el = r.lru.Back() {
		b := el.Value.(*bucket)
		if now.Sub(b.last) < r.idle { // mutation: policy-forgets-idle-keys
			return
		}
		r.lru.Remove(el)
		delete(r.buckets, b.key)
	}
}

// keys returns the buckets held, idle ones forgotten first.
func (r *rateLimiter) keys() int {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetIdleLocked(now)
	return len(r.buckets)
}

// principalKey is the default rate limit key: the principal's identity
// when it names one, else the principal itself when it can be a map key,
// else its type and printed value.
func principalKey(_ context.Context, info *RequestInfo) any {
	p := info.Principal
	if p == nil {
		return nil
	}
	if id := principalIdentity(p); id != "" {
		return id
	}
	if reflect.TypeOf(p).Comparable() {
		return p
	}
	return fmt.Sprintf("%T:%v", p, p)
}
