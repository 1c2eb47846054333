// JWT access tokens (RFC 9068): signature, issuer, audience, lifetime.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of a JWTVerifier.
const (
	DefaultClockSkew          = 30 * time.Second
	MaxClockSkew              = 5 * time.Minute
	DefaultMinRefreshInterval = time.Minute
	DefaultKeySetMaxAge       = time.Hour
	DefaultMaxKeys            = 32
	DefaultFetchTimeout       = 5 * time.Second
)

// DefaultAlgorithms are the signature algorithms accepted unless
// [JWTConfig].Algorithms says otherwise: asymmetric ones only.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// JWTConfig configures a [JWTVerifier].
type JWTConfig struct {
	// Issuer is the issuer identifier tokens must carry in iss (exactly).
	// Required.
	Issuer string
	// Audience is the resource identifier tokens must name in aud: the
	// [ResourceMetadata].Resource. Required. Scheme and host compare
	// without regard to case, and a trailing slash on an empty path is
	// ignored.
	Audience string
	// JWKSURL is where the issuer's keys are; "" discovers it from the
	// issuer's metadata (RFC 8414, then OpenID Connect Discovery).
	JWKSURL string
	// Algorithms are the accepted signature algorithms; nil means
	// [DefaultAlgorithms]. Only asymmetric algorithms are accepted: never
	// "none", never an HMAC keyed with a public key.
	Algorithms []string
	// ClockSkew is how far exp, nbf and iat may be off (default
	// [DefaultClockSkew], at most [MaxClockSkew]).
	ClockSkew time.Duration
	// MinRefreshInterval is the least time between two fetches of the key
	// set, whatever triggers them (a token with an unknown kid, a set past
	// its age, a failed fetch); default [DefaultMinRefreshInterval].
	MinRefreshInterval time.Duration
	// KeySetMaxAge is how long a fetched set is used before it is fetched
	// again when next needed (default [DefaultKeySetMaxAge]); while the
	// issuer is unreachable the last good set goes on serving.
	KeySetMaxAge time.Duration
	// MaxKeys bounds the keys kept from a set (default [DefaultMaxKeys]);
	// the rest are ignored.
	MaxKeys int
	// FetchTimeout bounds one fetch of the keys, discovery included
	// (default [DefaultFetchTimeout]).
	FetchTimeout time.Duration
	// HTTPClient fetches the metadata and keys; nil uses
	// http.DefaultClient. Redirects are not followed.
	HTTPClient *http.Client
	// Now tells the time; nil uses time.Now.
	Now func() time.Time
}

// JWTVerifier is a [Verifier] of JWT access tokens signed by one issuer.
type JWTVerifier struct {
	cfg  JWTConfig
	algs []jose.SignatureAlgorithm
	keys *keySet
}

// NewJWTVerifier checks cfg and returns the verifier. It fetches nothing:
// the keys are fetched when the first token needs them.
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	if _, err := url.Parse(cfg.Issuer); err != nil || cfg.Issuer == "" {
		return nil, errors.New("oauth: JWTConfig.Issuer is required")
	}
	if u, err := url.Parse(cfg.Audience); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, errors.New("oauth: JWTConfig.Audience must be the resource identifier, an absolute URL")
	}
	if cfg.Algorithms == nil {
		cfg.Algorithms = DefaultAlgorithms
	}
	var algs []jose.SignatureAlgorithm
	for _, a := range cfg.Algorithms {
		if !slices.Contains(DefaultAlgorithms, a) {
			return nil, fmt.Errorf("oauth: algorithm %q is not accepted (only asymmetric signatures are)", a)
		}
		algs = append(algs, jose.SignatureAlgorithm(a))
	}
	if len(algs) == 0 {
		return nil, errors.New("oauth: no algorithm accepted")
	}
	switch {
	case cfg.ClockSkew < 0 || cfg.ClockSkew > MaxClockSkew:
		return nil, fmt.Errorf("oauth: clock skew must be within 0 and %s", MaxClockSkew)
	case cfg.ClockSkew == 0:
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.MinRefreshInterval <= 0 {
		cfg.MinRefreshInterval = DefaultMinRefreshInterval
	}
	if cfg.KeySetMaxAge <= 0 {
		cfg.KeySetMaxAge = DefaultKeySetMaxAge
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultMaxKeys
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &JWTVerifier{cfg: cfg, algs: algs, keys: &keySet{
		issuer: cfg.Issuer, url: cfg.JWKSURL, hc: cfg.HTTPClient, timeout: cfg.FetchTimeout,
		every: cfg.MinRefreshInterval, maxAge: cfg.KeySetMaxAge, maxKeys: cfg.MaxKeys, now: cfg.Now,
	}}, nil
}

// accessClaims are the claims of RFC 9068 the verifier reads.
type accessClaims struct {
	jwt.Claims
	Scope    string          `json:"scope"`
	SCP      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
	AZP      string          `json:"azp"`
}

// Verify implements [Verifier]: the signature with the issuer's key for
// the token's kid, then iss, aud, exp (required), nbf and iat.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*Principal, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		if strings.Contains(err.Error(), "algorithm") {
			return nil, fmt.Errorf("%w: %v", ErrSignature, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(tok.Headers) != 1 {
		return nil, ErrMalformed
	}
	h := tok.Headers[0]
	key, err := v.keys.key(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	var c accessClaims
	var all map[string]any
	if err := tok.Claims(key.Key, &c, &all); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	now := v.cfg.Now()
	skew := v.cfg.ClockSkew
	switch {
	case c.Issuer != v.cfg.Issuer:
		return nil, ErrIssuer
	case !audienceHas(c.Audience, v.cfg.Audience):
		return nil, ErrAudience
	case c.Expiry == nil:
		return nil, fmt.Errorf("%w: no exp", ErrMalformed)
	case now.After(c.Expiry.Time().Add(skew)):
		return nil, ErrExpired
	case c.NotBefore != nil && now.Add(skew).Before(c.NotBefore.Time()):
		return nil, ErrNotYetValid
	case c.IssuedAt != nil && now.Add(skew).Before(c.IssuedAt.Time()):
		return nil, ErrNotYetValid
	}
	p := &Principal{
		Subject:  c.Subject,
		ClientID: c.ClientID,
		Issuer:   c.Issuer,
		Scopes:   strings.Fields(c.Scope),
		Audience: []string(c.Audience),
		Expiry:   c.Expiry.Time(),
		Claims:   all,
	}
	if p.ClientID == "" {
		p.ClientID = c.AZP
	}
	if len(p.Scopes) == 0 && len(c.SCP) > 0 {
		p.Scopes = scopeList(c.SCP)
	}
	return p, nil
}

// scopeList reads scp, a list or a space-separated string.
func scopeList(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return strings.Fields(s)
}

// audienceHas reports whether aud names the resource.
func audienceHas(aud []string, resource string) bool {
	want := canonical(resource)
	for _, a := range aud {
		if a == resource || canonical(a) == want {
			return true
		}
	}
	return false
}

// canonical lowercases scheme and host and drops the slash of an empty
// path, as the MCP specification's canonical server URI asks.
func canonical(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	p := u.EscapedPath()
	if p == "/" {
		p = ""
	}
	q := ""
	if u.RawQuery != "" {
		q = "?" + u.RawQuery
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p + q
}
