// Opaque tokens: RFC 7662 introspection, cached within each token's
// lifetime.
package oauth

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// Defaults of an Introspector.
const (
	DefaultIntrospectionCacheSize = 1024
	DefaultIntrospectionMaxTTL    = 5 * time.Minute
	DefaultIntrospectionTimeout   = 5 * time.Second
)

// IntrospectionConfig configures an [Introspector].
type IntrospectionConfig struct {
	// Issuer is the authorization server. Its metadata gives the
	// introspection endpoint when Endpoint is "", and an answer naming
	// another iss is refused. Required.
	Issuer string
	// Endpoint is the introspection endpoint; "" discovers it.
	Endpoint string
	// ClientID and ClientSecret authenticate the resource server to the
	// introspection endpoint (HTTP Basic, RFC 6749 §2.3.1). Required.
	ClientID, ClientSecret string
	// Audience is the resource identifier an active token must name in
	// aud ([ResourceMetadata].Resource). Required: an answer without aud
	// is refused, since the audience could not be checked.
	Audience string
	// CacheSize bounds the cached answers (default
	// [DefaultIntrospectionCacheSize]); the least recently used goes first.
	CacheSize int
	// MaxTTL bounds how long an active answer is reused (default
	// [DefaultIntrospectionMaxTTL]); never beyond the token's exp. A
	// token revoked at the authorization server is accepted until then.
	// Inactive answers are not cached.
	MaxTTL time.Duration
	// Timeout bounds one introspection request, discovery included
	// (default [DefaultIntrospectionTimeout]).
	Timeout time.Duration
	// HTTPClient makes the requests; nil uses http.DefaultClient.
	HTTPClient *http.Client
	// Now tells the time; nil uses time.Now.
	Now func() time.Time
}

// Introspector is a [Verifier] that asks the authorization server
// whether a token is active (RFC 7662).
type Introspector struct {
	cfg IntrospectionConfig

	mu       sync.Mutex
	endpoint string
	cache    map[[32]byte]*list.Element
	order    *list.List // of *cached, most recent first
}

type cached struct {
	key   [32]byte
	p     *Principal
	until time.Time
}

// NewIntrospector checks cfg and returns the introspector.
func NewIntrospector(cfg IntrospectionConfig) (*Introspector, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errors.New("oauth: IntrospectionConfig.Issuer is required")
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, errors.New("oauth: IntrospectionConfig needs the resource server's client id and secret")
	case cfg.Audience == "":
		return nil, errors.New("oauth: IntrospectionConfig.Audience is required")
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = DefaultIntrospectionCacheSize
	}
	if cfg.MaxTTL <= 0 {
		cfg.MaxTTL = DefaultIntrospectionMaxTTL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultIntrospectionTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Introspector{cfg: cfg, endpoint: cfg.Endpoint, cache: map[[32]byte]*list.Element{}, order: list.New()}, nil
}

// Verify implements [Verifier]. The cache is keyed by the token's
// SHA-256, so the tokens themselves are not kept.
func (in *Introspector) Verify(ctx context.Context, token string) (*Principal, error) {
	key := sha256.Sum256([]byte(token))
	if p := in.lookup(key); p != nil {
		return p, nil
	}
	p, err := in.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	until := in.cfg.Now().Add(in.cfg.MaxTTL)
	if !p.Expiry.IsZero() && p.Expiry.Before(until) {
		until = p.Expiry
	}
	in.store(key, p, until)
	return p, nil
}

func (in *Introspector) lookup(key [32]byte) *Principal {
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok := in.cache[key]
	if !ok {
		return nil
	}
	c := e.Value.(*cached)
	if !in.cfg.Now().Before(c.until) {
		in.order.Remove(e)
		delete(in.cache, key)
		return nil
	}
	in.order.MoveToFront(e)
	return c.p
}

func (in *Introspector) store(key [32]byte, p *Principal, until time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if e, ok := in.cache[key]; ok {
		in.order.Remove(e)
	}
	in.cache[key] = in.order.PushFront(&cached{key: key, p: p, until: until})
	for in.order.Len() > in.cfg.CacheSize {
		last := in.order.Back()
		in.order.Remove(last)
		delete(in.cache, last.Value.(*cached).key)
	}
}

// answer is an introspection response (RFC 7662 §2.2).
type answer struct {
	Active   bool            `json:"active"`
	Scope    string          `json:"scope"`
	ClientID string          `json:"client_id"`
	Sub      string          `json:"sub"`
	Exp      int64           `json:"exp"`
	Nbf      int64           `json:"nbf"`
	Iss      string          `json:"iss"`
	Aud      json.RawMessage `json:"aud"`
}

func (in *Introspector) introspect(ctx context.Context, token string) (*Principal, error) {
	ctx, cancel := context.WithTimeout(ctx, in.cfg.Timeout)
	defer cancel()
	endpoint, err := in.introspectionEndpoint(ctx)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint,
		strings.NewReader(url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.cfg.ClientID), url.QueryEscape(in.cfg.ClientSecret))
	resp, err := in.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, oauthmeta.MaxDocumentBytes+1))
	if err != nil || len(b) > oauthmeta.MaxDocumentBytes {
		return nil, fmt.Errorf("%w: introspection: unreadable or oversized answer", ErrUnavailable)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: introspection: HTTP %d", ErrUnavailable, resp.StatusCode)
	}
	var a answer
	var all map[string]any
	if json.Unmarshal(b, &a) != nil || json.Unmarshal(b, &all) != nil {
		return nil, fmt.Errorf("%w: introspection: the answer is not JSON", ErrUnavailable)
	}
	now := in.cfg.Now()
	aud := audiences(a.Aud)
	switch {
	case !a.Active:
		return nil, ErrInactive
	case a.Exp != 0 && !now.Before(time.Unix(a.Exp, 0)):
		return nil, ErrExpired
	case a.Nbf != 0 && now.Before(time.Unix(a.Nbf, 0)):
		return nil, ErrNotYetValid
	case a.Iss != "" && a.Iss != in.cfg.Issuer:
		return nil, ErrIssuer
	case !audienceHas(aud, in.cfg.Audience):
		return nil, ErrAudience
	}
	p := &Principal{Subject: a.Sub, ClientID: a.ClientID, Issuer: in.cfg.Issuer, Scopes: strings.Fields(a.Scope), Audience: aud, Claims: all}
	if a.Exp != 0 {
		p.Expiry = time.Unix(a.Exp, 0)
	}
	return p, nil
}

// introspectionEndpoint returns the endpoint, discovering it once.
func (in *Introspector) introspectionEndpoint(ctx context.Context) (string, error) {
	in.mu.Lock()
	e := in.endpoint
	in.mu.Unlock()
	if e != "" {
		return e, nil
	}
	md, err := oauthmeta.Discover(ctx, in.cfg.HTTPClient, in.cfg.Issuer)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if md.IntrospectionEndpoint == "" {
		return "", fmt.Errorf("%w: the metadata of %s has no introspection_endpoint", ErrUnavailable, in.cfg.Issuer)
	}
	in.mu.Lock()
	in.endpoint = md.IntrospectionEndpoint
	in.mu.Unlock()
	return md.IntrospectionEndpoint, nil
}

// audiences reads aud, a string or a list.
func audiences(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}
