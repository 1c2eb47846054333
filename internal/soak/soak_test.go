package soak_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// The soak's knobs: SNODO_SOAK_DURATION is how long the traffic runs
// (default 5 s, which the ordinary test run uses; .ci/soak sets it), and
// SNODO_SEED fixes the random choices (default a constant, so two runs of
// the same length make the same choices, though not in the same
// interleaving). SNODO_SOAK_HEAPPROFILE, when it names a directory,
// receives heap profiles taken where the live heap is measured and half
// way through the traffic (heap-before.pprof, heap-half.pprof,
// heap-after.pprof; compare them with go tool pprof -base), and
// SNODO_SOAK_SAMPLES, when it names a file, receives the memory samples
// taken every second (samples_test.go) as CSV.
const (
	defaultDuration = 5 * time.Second
	defaultSeed     = 20261201
)

// Workers: stdio sessions run one after another in each stdio worker;
// each HTTP worker makes one call at a time.
const (
	stdioWorkers = 2
	httpWorkers  = 4
)

// The bounds the soak asserts (the resident set's are in rssbound_test.go).
const (
	// After the traffic, once the server is idle, the live heap is within
	// heapSlack plus registryFill of what it was after the warm-up.
	heapSlack = 8 << 20
	// registryFill is what protoactor-go's process registry takes once and
	// keeps: it spreads actor ids over 1,024 concurrent maps of 32 shards
	// each, and a shard's Go map allocates its first group of slots (288
	// bytes) the first time an id lands in it. The warm-up reaches only a
	// few of the 32,768 shards; a long run reaches nearly all.
	registryFill = 1024 * 32 * 288
	// idleWithin bounds the wait for the server to be idle after the
	// traffic: parked executor workers leave after 10 s without work.
	idleWithin = time.Minute
)

// TestSoak runs one server on stdio and Streamable HTTP at once under
// mixed traffic for a bounded time: every kind of call (fast, slow,
// progress, panicking, refusing, catalog reads), cancellations, clients
// leaving mid-call, listen streams opening and closing, malformed and
// oversized frames, and stdio connections ending gracefully or abruptly.
// Every call whose outcome the client can know must get it exactly once;
// on the server every admitted call must end in exactly one outcome.
// Afterwards the live heap and the goroutines return to their level
// before the traffic, no actor is left, no message reached a stopped
// actor, and the resident set has not grown across the run beyond the
// bound above.
func TestSoak(t *testing.T) {
	duration := defaultDuration
	if v := os.Getenv("SNODO_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("SNODO_SOAK_DURATION=%q: want a positive duration such as 60s", v)
		}
		duration = d
	}
	seed := uint64(defaultSeed)
	if v := os.Getenv("SNODO_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SNODO_SEED=%q: %v", v, err)
		}
		seed = s
	}
	t.Logf("soak: %s of traffic, SNODO_SEED=%d, GOMAXPROCS %d", duration, seed, runtime.GOMAXPROCS(0))

	hub := hub.New(hub.Options{})
	out := newOutcomes()
	rt, err := soakRuntime(hub, out)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithSupervisor(sup), streamablehttp.WithLimits(streamablehttp.Limits{MaxBodyBytes: maxLine}))
	if err != nil {
		t.Fatal(err)
	}
	rep := newReport()
	goroutinesBefore := waitGoroutines(0, 3*time.Second) // the server's own, once its start-up ones have left

	// Warm-up: one session of each transport, so that what the server
	// builds once (schemas, pools) is in the heap's baseline.
	warm := rand.New(rand.NewPCG(seed, 0))
	s, err := startStdio(sup, rt, rep)
	if err != nil {
		t.Fatal(err)
	}
	open := ""
	for range 50 {
		s.act(warm, &open)
	}
	s.end(true)
	h := newHTTPClient(srv.URL(), rep)
	for range 50 {
		h.act(warm)
	}
	h.close()
	waitIdle(t, sup)
	heapBefore := liveHeap()
	writeHeap(t, "before")

	// The traffic.
	stop := make(chan struct{})
	var workers, helpers sync.WaitGroup
	for i := range stdioWorkers {
		rng := rand.New(rand.NewPCG(seed, uint64(1+i)))
		workers.Go(func() { runStdio(sup, rt, rep, rng, stop) })
	}
	for i := range httpWorkers {
		rng := rand.New(rand.NewPCG(seed, uint64(100+i)))
		workers.Go(func() { runHTTP(srv.URL(), rep, rng, stop) })
	}
	helpers.Go(func() { // list changes for the listen streams
		rng := rand.New(rand.NewPCG(seed, 1000))
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(10+rng.IntN(90)) * time.Millisecond):
				hub.ToolsListChanged()
			}
		}
	})
	var samples []memSample
	started := time.Now()
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() { // memory, every second, until the checks after the traffic
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		half := time.After(duration / 2)
		for {
			samples = append(samples, takeSample(time.Since(started)))
			select {
			case <-half:
				writeHeap(t, "half")
			default:
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	})
	<-time.After(duration)
	close(stop)
	workers.Wait()
	helpers.Wait()
	traffic := time.Since(started)

	// Afterwards.
	waitIdle(t, sup)
	close(stopSampling)
	sampler.Wait()
	for _, p := range out.check() {
		t.Error(p)
	}
	goroutinesAfter := waitGoroutines(goroutinesBefore, idleWithin)
	heapAfter := liveHeap()
	writeHeap(t, "after")
	if name := os.Getenv("SNODO_SOAK_SAMPLES"); name != "" {
		if f, err := os.Create(name); err != nil {
			t.Error(err)
		} else {
			if err := writeSamples(f, samples); err != nil {
				t.Error(err)
			}
			f.Close()
		}
	}
	var rss []memSample
	for _, s := range samples {
		if s.at < traffic {
			rss = append(rss, s)
		}
	}
	t.Logf("traffic %s: %s", traffic.Round(time.Second), rep.summary())
	t.Logf("server: %s", out)
	t.Logf("live heap after the warm-up %.1f MiB, after the traffic %.1f MiB; goroutines before %d, after %d",
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20), goroutinesBefore, goroutinesAfter)
	if heapAfter > heapBefore+heapSlack+registryFill {
		t.Errorf("the live heap did not return to its level: %d bytes after the traffic, %d after the warm-up (slack %d, and %d for the actor registry)", heapAfter, heapBefore, heapSlack, registryFill)
	}
	if goroutinesAfter > goroutinesBefore {
		t.Errorf("%d goroutines after the traffic, %d before it", goroutinesAfter, goroutinesBefore)
	}
	verdict := judgeRSS(rss, traffic)
	t.Logf("resident set: %s; peak %d KiB in the first quarter, %d KiB in the last", verdict,
		peakKiB(rss, 0, traffic/4), peakKiB(rss, traffic*3/4, traffic))
	if verdict.grew() {
		t.Errorf("the resident set grew across the run: %s", verdict)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Errorf("%d messages reached a stopped actor", n)
	}
	rep.mu.Lock()
	for _, f := range rep.failures {
		t.Error(f)
	}
	if rep.failed > len(rep.failures) {
		t.Errorf("... and %d more failures", rep.failed-len(rep.failures))
	}
	rep.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := sup.Close(ctx); err != nil {
		t.Errorf("closing the supervisor: %v", err)
	}
}

// waitIdle waits until the server has nothing in flight: no connection,
// request or stream in the tree, and an idle executor.
func waitIdle(t *testing.T, sup *supervisor.Supervisor) {
	t.Helper()
	deadline := time.Now().Add(idleWithin)
	for {
		tree := sup.Tree()
		exec := testkit.Find(tree, "executor")
		idle := tree.Count("connection") == 0 && tree.Count("request") == 0 &&
			tree.Count("subscription") == 0 && exec != nil && exec.Attrs["running"] == "0" && exec.Attrs["queued"] == "0"
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was not idle %s after the traffic:\n%s", idleWithin, tree)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGoroutines waits until the goroutines are no more than want, or
// until their number has held still for settle (at most idleWithin), and
// returns how many there are.
func waitGoroutines(want int, settle time.Duration) int {
	deadline := time.Now().Add(idleWithin)
	last, since := -1, time.Now()
	for {
		n := runtime.NumGoroutine()
		if n != last {
			last, since = n, time.Now()
		}
		if n <= want || time.Since(since) >= settle || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// writeHeap writes a heap profile to $SNODO_SOAK_HEAPPROFILE/heap-<name>.pprof
// when that variable names a directory.
func writeHeap(t *testing.T, name string) {
	dir := os.Getenv("SNODO_SOAK_HEAPPROFILE")
	if dir == "" {
		return
	}
	f, err := os.Create(dir + "/heap-" + name + ".pprof")
	if err != nil {
		t.Error(err) // not Fatal: the sampler calls it too
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Error(err)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
