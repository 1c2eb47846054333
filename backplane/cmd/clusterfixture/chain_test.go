package main

// Many requests through the whole chain (the round-robin proxy, then an
// instance), several at a time: every one gets its complete answer.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// The proxy forwards its inbound request body while the answer comes
// back. Without full duplex the HTTP/1 server closes that
// body as soon as the answer's head is written, the transport's last
// read of it fails, and the connection to the next hop is torn down
// under the answer: the client gets a cut body ("unexpected EOF").
func TestRunAnswersEveryRequestThroughTheChain(t *testing.T) {
	c := startCluster(t)
	const workers, each = 8, 40
	pad := strings.Repeat("x", 6<<10) // a body larger than a write buffer
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := w*each + i + 1
				frame := testkit.Request(id, "tools/list", map[string]any{"_meta": map[string]any{"pad": pad}})
				if err := post(ctx, client, c.url, frame); err != nil {
					errs <- fmt.Errorf("request %d: %w", id, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c.stop(t)
	if log := c.stderr.String(); strings.Contains(log, "ReverseProxy") {
		t.Fatalf("a proxy logged an error:\n%s", log)
	}
}

// post sends frame and reads the whole answer, which must hold a result.
func post(ctx context.Context, client *http.Client, url string, frame []byte) error {
	req, err := testfixture.NewMCPRequest(ctx, url, frame)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		return fmt.Errorf("status %d, body %q", resp.StatusCode, body)
	}
	return nil
}
