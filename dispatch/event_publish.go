// What a publish did, and the method sets a mounting Runtime relays its
// parts' change events through.

package dispatch

// publisher is a subscription source that publishes change events: a
// hub (package hub), or a source that also fans them out to other
// processes. A Runtime that mounts parts ([WithMount]) publishes its
// parts' changes on its subscription source when the source has this
// method.
type publisher interface {
	Publish(ev Event) (PublishResult, error)
}

// tapper is an event source that can be followed: a mounting Runtime
// relays the changes of a part whose subscription source, or catalog
// ([WithCatalog]), has this method. Tap calls fn with every event
// published from now on, on the publishing goroutine (fn does not
// block), and returns the function that removes the tap.
type tapper interface {
	Tap(fn func(Event)) (remove func())
}

// PublishResult counts what one Publish did.
type PublishResult struct {
	// Matched is the number of listeners whose filter names the event.
	Matched int
	// Delivered counts listeners that were waiting for an event: theirs
	// goes to the client at once.
	Delivered int
	// Buffered counts listeners that were still sending earlier events:
	// the event waits in their buffer.
	Buffered int
	// Dropped counts events lost to a full buffer: the new event when
	// the newest is dropped, the oldest buffered one when the oldest is
	// (the new one is then also counted in Buffered).
	Dropped int
}
