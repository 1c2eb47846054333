package excheck

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// Post sends one 2026-07-28 request over Streamable HTTP, with the headers
// that mirror its body, and returns the status and the body.
func Post(ctx context.Context, url string, id any, method string, params map[string]any) (int, []byte, error) {
	frame := testkit.Request(id, method, params)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(frame))
	if err != nil {
		return 0, nil, err
	}
	req.Header = testfixture.HTTPHeaders(frame)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
