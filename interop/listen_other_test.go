//go:build !linux

package interop

import (
	"errors"
	"time"
)

// listeningAddr needs the kernel's socket table (/proc), which only
// Linux has here; the tests that use it fail elsewhere with this error.
func listeningAddr(int, <-chan struct{}, time.Duration) (string, error) {
	return "", errors.New("finding the port a child listens on needs Linux's /proc")
}
