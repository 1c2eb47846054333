// Relaying a mounted part's change events to the Runtime that mounts it.

package dispatch

// partHub is the hub a part publishes its changes on: its subscription
// source, or its registry's.
func partHub(rt *Runtime) *Hub {
	if h := rt.Hub(); h != nil {
		return h
	}
	if rc, ok := rt.catalog.(registryCatalog); ok {
		return rc.reg.hub
	}
	if mc, ok := rt.catalog.(*mountCatalog); ok {
		if rc, ok := mc.own.(registryCatalog); ok {
			return rc.reg.hub
		}
	}
	return nil
}

// relayChanges taps the part's hub, if it has one, and publishes each of
// its events on out: list changes as they are, resource updates under the
// mounted URI (so a client subscribed to the mounted URI hears of it). No
// goroutine: the tap runs on the goroutine that published on the part's
// hub, and publishing on out never blocks. The tap lives as long as the
// part's hub.
func relayChanges(p *mountPart, out *Hub) {
	in := partHub(p.rt)
	if in == nil || in == out {
		return
	}
	in.Tap(func(ev Event) {
		if ev.Kind == EventResourceUpdated {
			ev.URI = MountedURI(p.prefix, ev.URI)
			if ev.Subscribed != "" {
				ev.Subscribed = MountedURI(p.prefix, ev.Subscribed)
			}
		}
		_, _ = out.Publish(ev)
	})
}
