package actors

import (
	"syscall"
	"testing"
	"time"
)

// cpuMeter reports the process's CPU time (user and system, every thread,
// the garbage collector included) per operation as "cpu-ns/op". On a
// shared two-core machine wall time per operation moves with the load of
// other processes; CPU per operation moves much less, and it is what the
// load harness's "server CPU per request" measures.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{start: processCPU()} }

func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(processCPU()-m.start)/float64(b.N), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
