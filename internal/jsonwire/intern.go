// This file decodes short JSON strings that recur on every request (method
// names, protocol versions, tool names) to one shared Go string each.

package jsonwire

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// Bounds of the table of shared strings: how many it holds and the longest
// it holds. Once full it stops growing; a string not in it is allocated as
// [Unquote] would.
const (
	internEntries  = 512
	internMaxBytes = 64
)

// interned is the table: an immutable map replaced under internMu on each
// addition, read without locking.
var (
	interned atomic.Pointer[map[string]string]
	internMu sync.Mutex
)

// UnquoteInterned is [Unquote] for strings expected to recur: a string
// without escapes of at most 64 bytes is looked up in a bounded table
// shared by the process, so decoding it again allocates nothing.
func UnquoteInterned(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if len(inner) > internMaxBytes || bytes.IndexByte(inner, '\\') >= 0 {
		return Unquote(raw)
	}
	if m := interned.Load(); m != nil {
		if s, ok := (*m)[string(inner)]; ok {
			return s, true
		}
	}
	return intern(inner), true
}

// intern adds s to the table unless it is full, and returns it as a string.
func intern(b []byte) string {
	s := string(b)
	internMu.Lock()
	defer internMu.Unlock()
	old := interned.Load()
	if old != nil {
		if have, ok := (*old)[s]; ok {
			return have
		}
		if len(*old) >= internEntries {
			return s
		}
	}
	next := make(map[string]string, internSize(old)+1)
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	next[s] = s
	interned.Store(&next)
	return s
}

func internSize(m *map[string]string) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
