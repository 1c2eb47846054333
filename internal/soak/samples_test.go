package soak_test

// The memory samples, taken once a second during the traffic: the
// resident set and the Go runtime's own view of its memory
// (runtime/metrics), written as CSV when SNODO_SOAK_SAMPLES names a file.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// memSample is the process's memory at one moment of the run.
type memSample struct {
	at      time.Duration // since the traffic started
	rssKiB  int64         // VmRSS: what the kernel holds for the process
	anonKiB int64         // RssAnon: its anonymous part (heap, stacks, the race detector's shadow)
	// goHeld is what the Go runtime has mapped and not returned to the
	// system: /memory/classes/total less /memory/classes/heap/released.
	goHeld     uint64
	heapObj    uint64 // /memory/classes/heap/objects: live and not yet swept objects
	heapLive   uint64 // /gc/heap/live: live heap at the last collection
	heapGoal   uint64 // /gc/heap/goal
	stacks     uint64 // /memory/classes/heap/stacks
	goroutines uint64 // /sched/goroutines
	gcs        uint64 // /gc/cycles/total
	// created is /sched/goroutines-created: under -race each goroutine
	// ever created keeps some of the race detector's memory.
	created uint64
}

var sampleMetrics = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/gc/heap/goal:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/sched/goroutines:goroutines",
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines-created:goroutines",
}

// takeSample reads the process's memory now.
func takeSample(at time.Duration) memSample {
	ms := make([]metrics.Sample, len(sampleMetrics))
	for i, n := range sampleMetrics {
		ms[i].Name = n
	}
	metrics.Read(ms)
	v := func(i int) uint64 {
		if ms[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return ms[i].Value.Uint64()
	}
	s := memSample{at: at, goHeld: v(0) - v(1), heapObj: v(2), heapLive: v(3), heapGoal: v(4), stacks: v(5), goroutines: v(6), gcs: v(7), created: v(8)}
	s.rssKiB, s.anonKiB = residentKiB()
	return s
}

// residentKiB reads VmRSS and RssAnon from /proc/self/status (zero where
// the system has no such file).
func residentKiB() (rss, anon int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	kib := func(v string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			rss = kib(v)
		} else if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			anon = kib(v)
		}
	}
	return rss, anon
}

// writeSamples writes the samples as CSV, one line a second.
func writeSamples(w io.Writer, samples []memSample) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "seconds,rss_kib,anon_kib,go_held_kib,heap_objects_kib,heap_live_kib,heap_goal_kib,stacks_kib,goroutines,gcs,goroutines_created")
	for _, s := range samples {
		fmt.Fprintf(bw, "%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", s.at.Seconds(), s.rssKiB, s.anonKiB,
			s.goHeld>>10, s.heapObj>>10, s.heapLive>>10, s.heapGoal>>10, s.stacks>>10, s.goroutines, s.gcs, s.created)
	}
	return bw.Flush()
}
