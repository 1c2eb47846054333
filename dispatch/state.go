// requestState: sealing and opening the MRTR state a client carries,
// and the options that set its keys and lifetime.

package dispatch

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// requestState sealing. A token is
//
//	"s1." key-id "." base64url(payload) "." base64url(HMAC-SHA256)
//
// where the MAC covers everything before it and the payload names the
// method, a digest of the salient params, a digest of the principal, the
// expiry, a nonce and the application's state. The key id picks the
// verifying key from the ring, so keys can be rotated: sign with the new
// key, keep the old ones until their tokens have expired.

// Limits of requestState.
const (
	maxStateKeys        = 8
	minStateKeyBytes    = 32
	maxRequestStateSize = 16 << 10
	defaultStateTTL     = 300 * time.Second
	maxStateTTL         = 900 * time.Second
)

type stateKey struct {
	id     string
	secret []byte
}

type stateSealer struct {
	keys []stateKey // keys[0] signs
	ttl  time.Duration
	now  func() time.Time
	// principalID maps a principal to the string a state is bound to.
	principalID func(any) string
}

type statePayload struct {
	Method    string `json:"m"`
	Params    string `json:"d"`
	Principal string `json:"p"`
	Expires   int64  `json:"e"` // Unix milliseconds
	Nonce     string `json:"n"`
	State     []byte `json:"s"`
}

// WithRequestStateKeys sets the HMAC-SHA256 key ring that seals
// requestState: the first key signs, all of them verify. At most 8 keys
// of at least 32 bytes each. Without this option the Runtime draws one
// random key at construction, which is fine for a single process but
// means states do not survive a restart and are not accepted by other
// instances behind a load balancer.
func WithRequestStateKeys(keys ...[]byte) Option {
	return optionFunc(func(b *builder) error {
		if len(keys) == 0 || len(keys) > maxStateKeys {
			return fmt.Errorf("dispatch: WithRequestStateKeys needs 1 to %d keys", maxStateKeys)
		}
		ring := make([]stateKey, 0, len(keys))
		ids := map[string]bool{}
		for i, k := range keys {
			if len(k) < minStateKeyBytes {
				return fmt.Errorf("dispatch: requestState key %d is shorter than %d bytes", i, minStateKeyBytes)
			}
			id := keyID(k)
			if ids[id] {
				return fmt.Errorf("dispatch: requestState key %d repeats an earlier key", i)
			}
			ids[id] = true
			ring = append(ring, stateKey{id: id, secret: append([]byte(nil), k...)})
		}
		b.rt.state.keys = ring
		return nil
	})
}

// WithRequestStateTTL sets how long a sealed requestState stays valid:
// more than 0 and at most 15 minutes. The default is 5 minutes.
func WithRequestStateTTL(d time.Duration) Option {
	return optionFunc(func(b *builder) error {
		if d <= 0 || d > maxStateTTL {
			return fmt.Errorf("dispatch: requestState TTL must be in (0, %s]", maxStateTTL)
		}
		b.rt.state.ttl = d
		return nil
	})
}

// WithPrincipalID sets how a request's Principal becomes the identity a
// requestState is bound to, so that state sealed for one principal is
// refused for another. The default uses an [IdentifiedPrincipal]'s
// PrincipalID (with its type), a string principal as is, a
// fmt.Stringer's String(), and otherwise the type and printed value.
func WithPrincipalID(f func(principal any) string) Option {
	return optionFunc(func(b *builder) error {
		if f == nil {
			return errors.New("dispatch: nil principal id function")
		}
		b.rt.state.principalID = f
		return nil
	})
}

// withClock replaces the clock used for requestState expiry; tests use it
// to move time without sleeping.
func withClock(now func() time.Time) Option {
	return optionFunc(func(b *builder) error {
		if now == nil {
			return errors.New("dispatch: nil clock")
		}
		b.rt.state.now = now
		return nil
	})
}

func defaultPrincipalID(p any) string {
	if id := principalIdentity(p); id != "" {
		return id
	}
	switch v := p.(type) {
	case nil:
		return ""
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprintf("%T:%+v", p, p)
}

func keyID(secret []byte) string {
	sum := sha256.Sum256(secret)
	return hex.EncodeToString(sum[:4])
}

// finish fills the defaults once the options have run.
func (s *stateSealer) finish() error {
	if s.ttl == 0 {
		s.ttl = defaultStateTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.principalID == nil {
		s.principalID = defaultPrincipalID
	}
	if len(s.keys) == 0 {
		secret := make([]byte, minStateKeyBytes)
		if _, err := rand.Read(secret); err != nil {
			return fmt.Errorf("dispatch: drawing a requestState key: %w", err)
		}
		s.keys = []stateKey{{id: keyID(secret), secret: secret}}
	}
	return nil
}

func (s *stateSealer) seal(state []byte, method string, params []byte, principal any) (string, error) {
	digest, err := paramsDigest(params)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	body, err := jsonwire.API.Marshal(statePayload{
		Method:    method,
		Params:    digest,
		Principal: principalDigest(s.principalID(principal)),
		Expires:   s.now().Add(s.ttl).UnixMilli(),
		Nonce:     base64.RawURLEncoding.EncodeToString(nonce),
		State:     state,
	})
	if err != nil {
		return "", err
	}
	k := s.keys[0]
	head := "s1." + k.id + "." + base64.RawURLEncoding.EncodeToString(body)
	token := head + "." + base64.RawURLEncoding.EncodeToString(mac(k.secret, head))
	if len(token) > maxRequestStateSize {
		return "", fmt.Errorf("sealed requestState is %d bytes, more than %d", len(token), maxRequestStateSize)
	}
	return token, nil
}

func (s *stateSealer) open(token, method string, params []byte, principal any) ([]byte, error) {
	if len(token) > maxRequestStateSize {
		return nil, errors.New("too large")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != "s1" {
		return nil, errors.New("malformed")
	}
	var key *stateKey
	for i := range s.keys {
		if s.keys[i].id == parts[1] {
			key = &s.keys[i]
			break
		}
	}
	if key == nil {
		return nil, errors.New("unknown key")
	}
	// Strict: a MAC has exactly one spelling, so no altered token opens.
	sig, err := base64.RawURLEncoding.Strict().DecodeString(parts[3])
	if err != nil || !hmac.Equal(sig, mac(key.secret, token[:len(token)-len(parts[3])-1])) {
		return nil, errors.New("bad signature")
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, errors.New("malformed payload")
	}
	var p statePayload
	if err := jsonwire.Unmarshal(body, &p); err != nil {
		return nil, errors.New("malformed payload")
	}
	digest, err := paramsDigest(params)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Method != method:
		return nil, errors.New("sealed for another method")
	case !hmac.Equal([]byte(p.Params), []byte(digest)):
		return nil, errors.New("sealed for other params")
	case !hmac.Equal([]byte(p.Principal), []byte(principalDigest(s.principalID(principal)))):
		return nil, errors.New("sealed for another principal")
	case s.now().UnixMilli() >= p.Expires:
		return nil, errors.New("expired")
	}
	if p.State == nil {
		p.State = []byte{}
	}
	return p.State, nil
}

func mac(secret []byte, msg string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("snodo requestState\x00"))
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func principalDigest(id string) string {
	sum := sha256.Sum256([]byte(id))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// mrtrOnlyParams are the params that change between rounds and so are not
// salient.
var mrtrOnlyParams = map[string]bool{"_meta": true, "inputResponses": true, "requestState": true}

// paramsDigest hashes the params that identify the request: all of them
// except _meta and the MRTR members, in a canonical form (sorted keys,
// numbers as written), so the same call hashes the same whatever its
// member order.
func paramsDigest(params []byte) (string, error) {
	salient := map[string]any{}
	var err error
	jsonwire.Members(params, func(key, value []byte) bool {
		k, ok := jsonwire.Unquote(key)
		if !ok || mrtrOnlyParams[k] {
			return true
		}
		var v any
		if e := jsonwire.Unmarshal(value, &v); e != nil {
			err = e
			return false
		}
		if k == "arguments" && isEmptyArguments(v) {
			// Absent, null and {} arguments are the same call: a client
			// may omit them on one round and send {} on the retry.
			return true
		}
		salient[k] = v
		return true
	})
	if err != nil {
		return "", err
	}
	canon, err := jsonwire.API.Marshal(salient)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func isEmptyArguments(v any) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}
