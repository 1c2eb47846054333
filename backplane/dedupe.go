// This file remembers which events of each origin an instance has
// applied, so that a duplicate delivery is dropped and a reordered one is
// not: a sliding window of sequence numbers per origin, as in RFC 4303's
// anti-replay check.

package backplane

// windowSize is how many of an origin's latest sequence numbers are
// remembered; an event older than that is dropped as late.
const windowSize = 1024

// maxOrigins bounds the origins remembered; past it the one heard from
// least recently is forgotten (instances come and go, each new process is
// a new origin).
const maxOrigins = 4096

// window is one origin's sliding window.
type window struct {
	top   uint64                  // the highest sequence number seen
	seen  [windowSize / 64]uint64 // bit s%windowSize: s was seen, for s in (top-windowSize, top]
	heard uint64                  // origins.clock when last heard from
}

// origins maps origin ids to their windows.
type origins struct {
	clock uint64
	m     map[string]*window
}

func newOrigins() *origins { return &origins{m: map[string]*window{}} }

// accept records seq of origin and reports whether it is fresh (never
// seen), or else whether it is late (too old to tell, dropped).
func (o *origins) accept(origin string, seq uint64) (fresh, late bool) {
	o.clock++
	w := o.m[origin]
	if w == nil {
		if len(o.m) >= maxOrigins {
			o.forgetOldest()
		}
		w = &window{}
		o.m[origin] = w
	}
	w.heard = o.clock
	switch {
	case seq > w.top:
		if seq-w.top >= windowSize {
			w.seen = [windowSize / 64]uint64{}
		} else {
			for s := w.top + 1; s < seq; s++ {
				w.clear(s)
			}
		}
		w.top = seq
		w.set(seq)
		return true, false
	case w.top-seq >= windowSize:
		return false, true
	case w.has(seq):
		return false, false
	}
	w.set(seq)
	return true, false
}

func (w *window) set(s uint64)      { w.seen[(s%windowSize)/64] |= 1 << (s % 64) }
func (w *window) clear(s uint64)    { w.seen[(s%windowSize)/64] &^= 1 << (s % 64) }
func (w *window) has(s uint64) bool { return w.seen[(s%windowSize)/64]&(1<<(s%64)) != 0 }

// forgetOldest forgets the origin heard from least recently.
func (o *origins) forgetOldest() {
	var oldest string
	var at uint64
	for k, w := range o.m {
		if oldest == "" || w.heard < at {
			oldest, at = k, w.heard
		}
	}
	delete(o.m, oldest)
}
