// The authorization code flow with PKCE: the request, the loopback
// redirect, and the validation of the response (state, RFC 9207 iss).
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/internal/oauthmeta"
)

// loopbackRedirect checks a redirect URI: http on a loopback host
// (RFC 8252 §7.3), no query or fragment.
func loopbackRedirect(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: redirect URL %q must be an http URL without query or fragment", s)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("oauth: redirect URL %q must be on a loopback address", s)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// callback is what the redirect brought back.
type callback struct {
	code string
	err  error
}

// authorizationCode sends the user to the authorization endpoint, takes
// the redirect on the loopback interface, checks it, and exchanges the
// code.
func (f *Flow) authorizationCode(ctx context.Context, prm *oauthmeta.ProtectedResource, as *oauthmeta.AuthorizationServer, scopes []string) (*Token, error) {
	if f.cfg.OpenURL == nil {
		return nil, ErrNoUser
	}
	ln, err := f.listen(as.Issuer)
	if err != nil {
		return nil, err
	}
	redirect := *f.redirect
	redirect.Host = net.JoinHostPort(f.redirect.Hostname(), strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	redirectURI := redirect.String()
	reg, err := f.identify(ctx, as, redirectURI)
	if err != nil {
		ln.Close()
		return nil, err
	}
	verifier, state := randomString(32), randomString(24)
	sum := sha256.Sum256([]byte(verifier))
	authURL, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("oauth: authorization endpoint: %w", err)
	}
	q := authURL.Query()
	q.Set("response_type", "code")
	q.Set("client_id", reg.clientID)
	q.Set("redirect_uri", redirectURI)
	q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("resource", prm.Resource)
	if len(scopes) > 0 {
		q.Set("scope", joinScopes(scopes))
	}
	authURL.RawQuery = q.Encode()

	done := make(chan callback, 1)
	srv := &http.Server{
		Handler:           f.callbackHandler(redirect.Path, state, as, done),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		_ = srv.Close()
		<-served
	}()
	var cb callback
	if err := f.cfg.OpenURL(ctx, authURL.String()); err != nil {
		select {
		case cb = <-done: // the response came, and the page told the user it failed
		default:
			return nil, fmt.Errorf("oauth: sending the user to the authorization server: %w", err)
		}
	} else {
		select {
		case cb = <-done:
		case <-ctx.Done():
			return nil, fmt.Errorf("oauth: waiting for the authorization response: %w", ctx.Err())
		}
	}
	if cb.err != nil {
		return nil, cb.err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {cb.code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
		"resource":      {prm.Resource},
	}
	t, err := f.tokenRequest(ctx, as, reg, form, scopes)
	if err != nil {
		return nil, err
	}
	t.RedirectURL = reg.redirectURL
	return t, nil
}

// listen opens the redirect listener: on the configured port, or, when
// that is 0 and an earlier registration with issuer names a port, on that
// one if it is free.
func (f *Flow) listen(issuer string) (net.Listener, error) {
	host, port := f.redirect.Hostname(), f.redirect.Port()
	if port == "" {
		port = "80"
	}
	if port == "0" {
		f.mu.Lock()
		reg, t := f.reg[issuer], f.token
		f.mu.Unlock()
		prev := ""
		if reg != nil {
			prev = reg.redirectURL
		} else if t != nil && t.Issuer == issuer {
			prev = t.RedirectURL
		}
		if u, err := url.Parse(prev); err == nil && prev != "" && u.Hostname() == host {
			if ln, err := net.Listen("tcp", net.JoinHostPort(host, u.Port())); err == nil {
				return ln, nil
			}
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("oauth: listening for the redirect: %w", err)
	}
	return ln, nil
}

// callbackHandler answers the redirect. A request with another path or
// state is refused and the flow keeps waiting (anything on the machine
// can reach the port); the first one with the state ends the wait.
func (f *Flow) callbackHandler(path, state string, as *oauthmeta.AuthorizationServer, done chan<- callback) http.Handler {
	var answered atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Method != http.MethodGet || r.URL.Path != path || q.Get("state") != state {
			http.Error(w, "This is not the authorization response this client is waiting for.", http.StatusBadRequest)
			return
		}
		if !answered.CompareAndSwap(false, true) {
			http.Error(w, "The authorization response was already received.", http.StatusConflict)
			return
		}
		cb := parseResponse(q, as)
		done <- cb
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if cb.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("Authorization failed; you can close this window.\n"))
			return
		}
		_, _ = w.Write([]byte("Authorization complete; you can close this window.\n"))
	})
}

// parseResponse validates an authorization response whose state matched:
// the issuer first (RFC 9207 §2.4, as the MCP specification's table
// applies it: a present iss must equal the issuer, an absent one is
// refused when the server advertises iss), then an error, then the code.
func parseResponse(q url.Values, as *oauthmeta.AuthorizationServer) callback {
	iss, hasIss := q.Get("iss"), q.Has("iss")
	switch {
	case hasIss && iss != as.Issuer:
		return callback{err: fmt.Errorf("%w: it names issuer %q, not %q", ErrAuthorizationResponse, iss, as.Issuer)}
	case !hasIss && as.AuthorizationResponseIssParameterSupported:
		return callback{err: fmt.Errorf("%w: the issuer %q advertises iss and the response has none", ErrAuthorizationResponse, as.Issuer)}
	}
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		return callback{err: fmt.Errorf("%w: %s", ErrAuthorizationResponse, msg)}
	}
	code := q.Get("code")
	if code == "" {
		return callback{err: errors.Join(ErrAuthorizationResponse, errors.New("no code"))}
	}
	return callback{code: code}
}

// randomString is n random bytes in base64url.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
