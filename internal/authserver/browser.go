package authserver

// Completing an authorization code flow as a browser would, for tests.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
)

// Browser plays the user agent the authorization code flow sends to
// authURL: it follows the redirects through the server's (automatic)
// login and consent, keeping cookies, to the client's redirect URI, which
// it requests as a browser would. It fails unless that last answer is a
// success.
func Browser(ctx context.Context, authURL string) error {
	jar, _ := cookiejar.New(nil)
	hops := 0
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		hops++
		if hops > 10 {
			return errors.New("authserver: more than 10 redirects")
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("authserver: browser: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("authserver: browser ended at %s with HTTP %d: %s", resp.Request.URL.Redacted(), resp.StatusCode, body)
	}
	return nil
}
