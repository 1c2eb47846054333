// The issuer's signing keys: fetched lazily, bounded, refreshed at most
// once per interval, the last good set kept while the issuer is
// unreachable.
package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// keySet caches the verification keys of one issuer.
type keySet struct {
	issuer  string
	url     string // the JWKS URL; "" until discovered
	hc      *http.Client
	timeout time.Duration // bounds one fetch (discovery included)
	every   time.Duration // at most one fetch per interval
	maxAge  time.Duration // a set older than this is fetched again when next used
	maxKeys int
	now     func() time.Time

	mu       sync.Mutex
	keys     []jose.JSONWebKey // the last good set; nil before the first
	fetched  time.Time         // when keys was fetched
	tried    time.Time         // when the last fetch began (zero: never)
	inflight chan struct{}     // closed when the fetch under way ends
	lastErr  error
}

// errUnknownKey: no key of the set matches the token.
var errUnknownKey = errors.New("no key of the issuer matches the token")

// key returns the key for a token's kid and alg. An unknown kid, or a
// set past its age, causes one fetch if the interval allows it; a failed
// fetch keeps the set it had.
func (k *keySet) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	found := k.lookup(kid, alg)
	stale := k.keys != nil && k.now().Sub(k.fetched) >= k.maxAge
	mayFetch := k.tried.IsZero() || k.now().Sub(k.tried) >= k.every
	wait := k.inflight
	switch {
	case found != nil && !stale, !mayFetch && wait == nil:
		k.mu.Unlock()
		return k.result(found)
	case wait != nil:
		// Another request is fetching: wait for it.
		k.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			if found != nil {
				return found, nil // a stale set still verifies
			}
			return nil, fmt.Errorf("%w: waiting for the issuer's keys: %v", ErrUnavailable, ctx.Err())
		}
	default:
		wait = make(chan struct{})
		k.inflight, k.tried = wait, k.now()
		k.mu.Unlock()
		k.fetch(ctx, wait)
	}
	k.mu.Lock()
	found = k.lookup(kid, alg)
	k.mu.Unlock()
	return k.result(found)
}

// result is what key returns for the key lookup found.
func (k *keySet) result(found *jose.JSONWebKey) (*jose.JSONWebKey, error) {
	if found != nil {
		return found, nil
	}
	k.mu.Lock()
	noKeys, lastErr := k.keys == nil, k.lastErr
	k.mu.Unlock()
	if noKeys {
		return nil, fmt.Errorf("%w: the issuer's keys: %v", ErrUnavailable, lastErr)
	}
	return nil, errUnknownKey
}

// lookup finds the key for kid (any key for a token without kid, when
// the set has exactly one for alg). k.mu is held.
func (k *keySet) lookup(kid, alg string) *jose.JSONWebKey {
	var match *jose.JSONWebKey
	n := 0
	for i := range k.keys {
		key := &k.keys[i]
		if key.Algorithm != "" && key.Algorithm != alg || !algFits(alg, key.Key) {
			continue
		}
		if kid != "" {
			if key.KeyID == kid {
				return key
			}
			continue
		}
		match = key
		n++
	}
	if n == 1 {
		return match
	}
	return nil
}

// fetch runs on the goroutine of the request that found the set wanting,
// bounded by the fetch timeout but not by that request's cancellation
// (others may be waiting for it), and ends by closing done.
func (k *keySet) fetch(ctx context.Context, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.timeout)
	defer cancel()
	keys, err := k.load(ctx)
	k.mu.Lock()
	if err == nil {
		k.keys, k.fetched, k.lastErr = keys, k.now(), nil
	} else {
		k.lastErr = err
	}
	k.inflight = nil
	k.mu.Unlock()
	close(done)
}

// load discovers the JWKS URL if needed and reads the set, keeping the
// usable public signing keys, at most maxKeys of them.
func (k *keySet) load(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	u := k.url
	k.mu.Unlock()
	if u == "" {
		md, err := oauthmeta.Discover(ctx, k.hc, k.issuer)
		if err != nil {
			return nil, err
		}
		if md.JWKSURI == "" {
			return nil, fmt.Errorf("the metadata of %s has no jwks_uri", k.issuer)
		}
		u = md.JWKSURI
		k.mu.Lock()
		k.url = u
		k.mu.Unlock()
	}
	var set struct {
		Keys []rawKey `json:"keys"`
	}
	if err := oauthmeta.GetJSON(ctx, k.hc, u, 0, &set); err != nil {
		return nil, err
	}
	var keys []jose.JSONWebKey
	for _, rk := range set.Keys {
		key, ok := rk.usable()
		if !ok {
			continue
		}
		if len(keys) == k.maxKeys {
			break
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the key set at %s has no usable signing key", u)
	}
	return keys, nil
}

// rawKey decodes one member of a key set on its own, so that a key the
// JOSE library cannot read is skipped instead of failing the set.
type rawKey struct{ key *jose.JSONWebKey }

func (r *rawKey) UnmarshalJSON(b []byte) error {
	var k jose.JSONWebKey
	if k.UnmarshalJSON(b) == nil {
		r.key = &k
	}
	return nil
}

// usable keeps public signature keys of the kinds the verifier accepts.
func (r rawKey) usable() (jose.JSONWebKey, bool) {
	if r.key == nil || r.key.Use != "" && r.key.Use != "sig" || !r.key.Valid() {
		return jose.JSONWebKey{}, false
	}
	pub := r.key.Public()
	if !pub.Valid() {
		return jose.JSONWebKey{}, false // a symmetric key has no public half
	}
	switch key := pub.Key.(type) {
	case *rsa.PublicKey:
		if key.N.BitLen() < 2048 {
			return jose.JSONWebKey{}, false
		}
	case *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return jose.JSONWebKey{}, false
	}
	return pub, true
}

// algFits reports whether a key of this type can verify alg.
func algFits(alg string, key any) bool {
	switch key.(type) {
	case *rsa.PublicKey:
		return slices.Contains([]string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}, alg)
	case *ecdsa.PublicKey:
		return slices.Contains([]string{"ES256", "ES384", "ES512"}, alg)
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
