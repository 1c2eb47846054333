// This file is a bytes buffer that a test may read while a server, a
// logger or a child process writes to it.

package testfixture

import (
	"bytes"
	"sync"
)

// Buffer collects output (a log handler's, a transport's, a child
// process's standard error) that the test reads while it is still being
// written. The zero Buffer is empty and ready; it is safe for concurrent
// use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
