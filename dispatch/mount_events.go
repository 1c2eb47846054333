// Relaying a mounted part's list changes to the Runtime that mounts it.

package dispatch

import "github.com/snodo-go/snodo/mcp"

// partHub is the hub a part publishes its list changes on: its
// subscription source, or its registry's.
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

// relayListChanges attaches a listener for list changes to the part's
// hub, if it has one, and publishes each on out. No goroutine: the
// listener is drained by its wake, which the part's hub calls outside its
// lock on the goroutine that published, and publishing on out never
// blocks. The listener lives as long as the part's hub (until its
// Complete).
func relayListChanges(part *Runtime, out *Hub) {
	in := partHub(part)
	if in == nil || in == out {
		return
	}
	r := &listRelay{out: out}
	r.l = in.Attach(mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}, r.drain)
	r.drain() // from now on the hub wakes it
}

type listRelay struct {
	l   *HubListener
	out *Hub
}

func (r *listRelay) drain() {
	if r.l == nil {
		return // woken while Attach has not returned: drained right after
	}
	for {
		ev, err := r.l.Next()
		if err != nil {
			return
		}
		_, _ = r.out.Publish(Event{Kind: ev.Kind})
	}
}
