package load

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTicks is the kernel's USER_HZ, 100 on every Linux this harness
// targets.
const clockTicks = 100

// ProcCPU returns the user plus system CPU time the process has used, from
// /proc/<pid>/stat (10 ms resolution).
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may contain spaces; fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("load: malformed /proc/%d/stat", pid)
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("load: short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(string(fields[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(fields[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("load: malformed /proc/%d/stat times", pid)
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// ProcMem returns VmHWM (peak resident set) and VmRSS in KiB from
// /proc/<pid>/status.
func ProcMem(pid int) (hwmKiB, rssKiB int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		switch {
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			hwmKiB = kib(line)
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			rssKiB = kib(line)
		}
	}
	return hwmKiB, rssKiB, nil
}

func kib(line []byte) int64 {
	f := bytes.Fields(line)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n
}
