package backplane_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/stdio"
)

// stdioClient serves in over stdio (pipes, a private supervision tree)
// allowing max listen streams on the one connection, and connects a
// client to it; the test's cleanup closes both and waits for Serve.
func stdioClient(t *testing.T, in *instance, max int) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		err := stdio.Serve(ctx, in.rt, stdio.WithInput(inR), stdio.WithOutput(outW),
			stdio.WithLimits(stdio.Limits{MaxSubscriptions: max}))
		outW.Close()
		served <- err
	}()
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	c, err := client.New(cctx, &client.StreamTransport{Reader: outR, Writer: inW})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		cancel()
		inR.Close()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("stdio.Serve did not return in 20 s")
		}
		outR.Close()
	})
	return c
}

// TestTenThousandListenStreamsOverThreeInstances opens 10,000
// subscriptions/listen streams through real clients over stdio, spread
// over three instances sharing one NATS server. Each instance publishes
// one update of the watched resource and then its end marker; every
// stream reads exactly the three updates, each once, and the three
// markers (NATS keeps each connection's messages in order, so once a
// stream has every marker it has everything published before them).
func TestTenThousandListenStreamsOverThreeInstances(t *testing.T) {
	const n = 10000
	ns := startNATS(t)
	names := []string{"a", "b", "c"}
	ins := make([]*instance, len(names))
	clients := make([]*client.Client, len(names))
	for i, name := range names {
		ins[i] = newInstance(t, name, ns.connect(t), hub.Options{})
		clients[i] = stdioClient(t, ins[i], n)
	}
	filter := mcp.SubscriptionFilter{ResourceSubscriptions: []string{watched, "file:///end/a", "file:///end/b", "file:///end/c"}}

	// Each phase has 120 s: under the race detector on a loaded 2-core
	// machine, opening the streams has taken 12 to 55 s.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := time.Now()
	subs := make([]*client.Subscription, n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	// Streams open 64 at a time on each connection.
	for w := range 64 * len(clients) {
		wg.Go(func() {
			for i := w; i < n; i += 64 * len(clients) {
				sub, err := clients[i%len(clients)].Listen(ctx, filter)
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, fmt.Errorf("stream %d: %w", i, err))
					mu.Unlock()
					return
				}
				subs[i] = sub
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, s := range subs {
			if s != nil {
				_ = s.Close()
			}
		}
	})
	if firstErr != nil {
		t.Fatal(firstErr)
	}

	t.Logf("%d streams open in %v", n, time.Since(start))
	start = time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, in := range ins {
		uri := watched + "/" + in.name
		if _, err := in.events.Publish(dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: uri, Subscribed: watched}); err != nil {
			t.Fatal(err)
		}
		endMarker(t, in)
	}

	want := []string{"updated file:///end/a", "updated file:///end/b", "updated file:///end/c",
		"updated " + watched + "/a", "updated " + watched + "/b", "updated " + watched + "/c"}
	got := make([][]string, n)
	for w := range 64 {
		wg.Go(func() {
			for i := w; i < n; i += 64 {
				ends := 0
				for ends < len(names) {
					ev, err := subs[i].Next(ctx)
					if err != nil {
						mu.Lock()
						firstErr = cmpErr(firstErr, fmt.Errorf("stream %d after %v: %w", i, got[i], err))
						mu.Unlock()
						return
					}
					l := label(ev)
					if len(l) > len("updated file:///end/") && l[:len("updated file:///end/")] == "updated file:///end/" {
						ends++
					}
					got[i] = append(got[i], l)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("every stream read its events in %v", time.Since(start))
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	for i, g := range got {
		slices.Sort(g)
		if !slices.Equal(g, want) {
			t.Fatalf("stream %d (on %s) read %v, want %v, each once", i, names[i%len(names)], g, want)
		}
	}
	for _, in := range ins {
		if s := in.events.Stats(); s.Duplicates != 0 || s.Invalid != 0 {
			t.Errorf("%s: stats %+v", in.name, s)
		}
		if hs := in.hub.Stats(); hs.Dropped != 0 {
			t.Errorf("%s: the hub dropped %d events", in.name, hs.Dropped)
		}
	}
}

// cmpErr keeps the first error.
func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
