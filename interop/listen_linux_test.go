//go:build linux

package interop

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// listeningAddr returns the 127.0.0.1 address a child process listens
// on, read from the kernel's table of its sockets: the child binds port 0
// itself, so no other process can take the port between a choice and a
// bind. It waits until the child listens, exits, or timeout passes.
func listeningAddr(pid int, exited <-chan struct{}, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		addr, err := findListener(pid)
		if err == nil && addr != "" {
			return addr, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("not listening within %s (%v)", timeout, err)
		}
		select {
		case <-exited:
			return "", errors.New("exited before it listened")
		case <-tick.C:
		}
	}
}

// findListener looks for a listening IPv4 TCP socket among pid's open
// files.
func findListener(pid int) (string, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return "", err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
			continue
		}
		host, port, ok := strings.Cut(fields[1], ":")
		if !ok || host != "0100007F" { // 127.0.0.1, little-endian hex
			continue
		}
		p, err := strconv.ParseUint(port, 16, 16)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("127.0.0.1:%d", p), nil
	}
	return "", sc.Err()
}
