// Relaying a mounted part's change events to the Runtime that mounts it.

package dispatch

import "reflect"

// partTapper is what a part publishes its changes on: its subscription
// source, or its catalog, when it can be followed.
func partTapper(rt *Runtime) tapper {
	if t, ok := rt.source.(tapper); ok {
		return t
	}
	own := rt.catalog
	if mc, ok := own.(*mountCatalog); ok {
		own = mc.own
	}
	if dc, ok := own.(dynamicCatalog); ok {
		if t, ok := dc.c.(tapper); ok {
			return t
		}
	}
	return nil
}

// relayChanges taps the part's source or catalog, if it can be followed,
// and publishes each of its events on out: list changes as they are,
// resource updates under the mounted URI (so a client subscribed to the
// mounted URI hears of it). No goroutine: the tap runs on the goroutine
// that published on the part's side, and publishing on out must not
// block. The tap lives as long as the part's source.
func relayChanges(p *mountPart, out publisher) {
	in := partTapper(p.rt)
	if in == nil || same(in, out) {
		return
	}
	in.Tap(func(ev Event) {
		if ev.Kind == EventResourceUpdated {
			ev.URI = mountedURI(p.prefix, ev.URI)
			if ev.Subscribed != "" {
				ev.Subscribed = mountedURI(p.prefix, ev.Subscribed)
			}
		}
		_, _ = out.Publish(ev)
	})
}

// same reports whether a and b are the same comparable value (never
// panicking on values that cannot be compared).
func same(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta != nil && ta.Comparable() && a == b
}
