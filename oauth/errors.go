// Why a token was refused: the errors verifiers return.
package oauth

import "errors"

// ErrInvalidToken is wrapped by every refusal of a token; the more
// specific errors below are wrapped with it.
var ErrInvalidToken = errors.New("oauth: invalid token")

// The reasons a token is refused. Each is also ErrInvalidToken.
var (
	// ErrMalformed: not a well-formed token of the kind the verifier
	// takes, or larger than the bound.
	ErrMalformed = wrapInvalid("malformed token")
	// ErrSignature: the signature does not verify, the algorithm is not
	// allowed, or no key of the issuer matches.
	ErrSignature = wrapInvalid("signature not verified")
	// ErrExpired: past its expiry (beyond the clock skew).
	ErrExpired = wrapInvalid("token expired")
	// ErrNotYetValid: its not-before or issued-at time is in the future
	// (beyond the clock skew).
	ErrNotYetValid = wrapInvalid("token not valid yet")
	// ErrIssuer: issued by another issuer than the one configured.
	ErrIssuer = wrapInvalid("token from another issuer")
	// ErrAudience: not issued for this resource (RFC 8707).
	ErrAudience = wrapInvalid("token not issued for this resource")
	// ErrInactive: the authorization server says the token is not active.
	ErrInactive = wrapInvalid("token not active")
)

// ErrUnavailable: the token could not be checked because the
// authorization server (its keys, its introspection endpoint) could not
// be reached or answered nonsense, and nothing cached could stand in.
// The middleware answers 503; it is not ErrInvalidToken.
var ErrUnavailable = errors.New("oauth: authorization server unavailable")

type invalid struct{ msg string }

func (e *invalid) Error() string { return "oauth: " + e.msg }
func (e *invalid) Unwrap() error { return ErrInvalidToken }

func wrapInvalid(msg string) error { return &invalid{msg: msg} }

// describe is the error_description of a refusal: fixed text per
// reason, never anything from the token.
func describe(err error) string {
	for _, e := range []error{ErrMalformed, ErrSignature, ErrExpired, ErrNotYetValid, ErrIssuer, ErrAudience, ErrInactive} {
		if errors.Is(err, e) {
			return e.(*invalid).msg
		}
	}
	return "invalid token"
}
