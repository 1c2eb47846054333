// One bounded JSON GET, for metadata documents.
package oauthmeta

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxDocumentBytes bounds a metadata document or a key set.
const MaxDocumentBytes = 256 << 10

// StatusError is a metadata fetch answered with a status other than 200.
type StatusError struct {
	URL        string
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d", e.URL, e.StatusCode)
}

// GetJSON fetches url and decodes its JSON body (at most max bytes, or
// MaxDocumentBytes when max is 0) into v. Redirects are not followed.
func GetJSON(ctx context.Context, hc *http.Client, url string, max int64, v any) error {
	if max <= 0 {
		max = MaxDocumentBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirects(hc).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return &StatusError{URL: url, StatusCode: resp.StatusCode}
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "" && ct != "application/json" && !isJSONSuffix(ct) {
		return fmt.Errorf("GET %s: content type %q is not JSON", url, ct)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(b)) > max {
		return fmt.Errorf("GET %s: document larger than %d bytes", url, max)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// isJSONSuffix accepts structured syntax suffixes such as
// application/jwk-set+json.
func isJSONSuffix(ct string) bool {
	return len(ct) > 5 && ct[len(ct)-5:] == "+json"
}

// noRedirects returns a client that does not follow redirects: a
// metadata document is read where it was looked for.
func noRedirects(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}
