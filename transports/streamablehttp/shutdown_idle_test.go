package streamablehttp_test

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/testkit"
)

// countingConn counts the bytes a client connection reads and reports
// when its reads end or the client closes it.
type countingConn struct {
	net.Conn
	read   atomic.Int64
	closed chan struct{}
	once   sync.Once
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	if err != nil {
		c.once.Do(func() { close(c.closed) })
	}
	return n, err
}

func (c *countingConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { close(c.closed) })
	return err
}

// TestShutdownClosesIdleKeepAliveConnections: a burst of requests from
// Go's HTTP client leaves its keep-alive connections idle in its pool;
// Shutdown closes them without writing anything, so the client never
// reads an unsolicited response ("Unsolicited response received on idle
// HTTP channel"). A 503 belongs only to a request that was read.
func TestShutdownClosesIdleKeepAliveConnections(t *testing.T) {
	srv := testfixture.StartHTTP(t, testRuntime(t, nil))
	var mu sync.Mutex
	var conns []*countingConn
	tr := &http.Transport{
		MaxIdleConnsPerHost: 64,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: c, closed: make(chan struct{})}
			mu.Lock()
			conns = append(conns, cc)
			mu.Unlock()
			return cc, nil
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	const burst = 32
	var wg sync.WaitGroup
	errs := make(chan error, burst)
	for i := range burst {
		wg.Go(func() {
			req, err := testfixture.NewMCPRequest(context.Background(), srv.URL(), call(i+1, "echo", map[string]any{"text": "hi"}))
			if err != nil {
				errs <- err
				return
			}
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mu.Lock()
	opened := append([]*countingConn(nil), conns...)
	mu.Unlock()
	before := make([]int64, len(opened))
	for i, c := range opened {
		before[i] = c.read.Load() // every response has been read in full
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for i, c := range opened {
		select {
		case <-c.closed:
		case <-time.After(testkit.DefaultTimeout):
			t.Fatalf("connection %d of %d was not closed by Shutdown", i+1, len(opened))
		}
		if extra := c.read.Load() - before[i]; extra != 0 {
			t.Errorf("idle connection %d of %d received %d bytes at shutdown", i+1, len(opened), extra)
		}
	}
}

// TestShutdownUnderLoadSendsNoUnsolicitedResponse: Go's HTTP client keeps
// sending on a pool of keep-alive connections while the listener shuts
// down. Requests that were read get their answers (200, or 503 once
// draining); a connection between requests is closed, so the client
// logs no "Unsolicited response received on idle HTTP channel".
func TestShutdownUnderLoadSendsNoUnsolicitedResponse(t *testing.T) {
	var logs lockedLog
	log.SetOutput(&logs) // net/http's client logs through the standard logger
	defer log.SetOutput(os.Stderr)

	srv := testfixture.StartHTTP(t, testRuntime(t, nil))
	var mu sync.Mutex
	var conns []*countingConn
	tr := &http.Transport{
		MaxIdleConnsPerHost: 64,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: c, closed: make(chan struct{})}
			mu.Lock()
			conns = append(conns, cc)
			mu.Unlock()
			return cc, nil
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	const workers = 32
	var served atomic.Int64
	warm := make(chan struct{})
	var warmOnce sync.Once
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Each worker stops at its first failure (the listener is
			// gone) or after 2,000 requests.
			for i := range 2000 {
				req, err := testfixture.NewMCPRequest(context.Background(), srv.URL(), call(w*10000+i+1, "echo", map[string]any{"text": "hi"}))
				if err != nil {
					return
				}
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return
				}
				if served.Add(1) == 4*workers {
					warmOnce.Do(func() { close(warm) })
				}
			}
		})
	}
	select {
	case <-warm:
	case <-time.After(testkit.DefaultTimeout):
		t.Fatal("the workers did not get going")
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	wg.Wait()
	mu.Lock()
	opened := append([]*countingConn(nil), conns...)
	mu.Unlock()
	for i, c := range opened {
		select {
		case <-c.closed: // its reads have ended: anything it got is logged by now
		case <-time.After(testkit.DefaultTimeout):
			t.Fatalf("connection %d of %d still open after Shutdown", i+1, len(opened))
		}
	}
	tr.CloseIdleConnections()
	if strings.Contains(logs.String(), "Unsolicited response") {
		t.Fatalf("the client read an unsolicited response at shutdown (%d connections, %d requests served):\n%s", len(opened), served.Load(), logs.String())
	}
}

// lockedLog collects the standard logger's output.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
