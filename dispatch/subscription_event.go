package dispatch

// Subscription events: their kinds, their fields, and their validation.

import (
	"encoding/json"
	"errors"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// EventKind is the kind of a change event a subscription carries.
type EventKind uint8

// The event kinds, one per notification.
const (
	// EventToolsListChanged: notifications/tools/list_changed.
	EventToolsListChanged EventKind = iota + 1
	// EventPromptsListChanged: notifications/prompts/list_changed.
	EventPromptsListChanged
	// EventResourcesListChanged: notifications/resources/list_changed.
	EventResourcesListChanged
	// EventResourceUpdated: notifications/resources/updated for one URI.
	EventResourceUpdated
	// EventExtension: an extension's notification (Event.Method) for one
	// key (Event.Key) of a filter member it adds (Event.Member), such as
	// notifications/tasks for one task of taskIds. See [ExtensionFilter].
	EventExtension
)

// Method returns the notification method of the kind, or "" for an
// unknown kind and for EventExtension, whose events name their own.
func (k EventKind) Method() string {
	switch k {
	case EventToolsListChanged:
		return "notifications/tools/list_changed"
	case EventPromptsListChanged:
		return "notifications/prompts/list_changed"
	case EventResourcesListChanged:
		return "notifications/resources/list_changed"
	case EventResourceUpdated:
		return "notifications/resources/updated"
	}
	return ""
}

// String returns the kind's filter name, such as "toolsListChanged".
func (k EventKind) String() string {
	switch k {
	case EventToolsListChanged:
		return "toolsListChanged"
	case EventPromptsListChanged:
		return "promptsListChanged"
	case EventResourcesListChanged:
		return "resourcesListChanged"
	case EventResourceUpdated:
		return "resourceUpdated"
	case EventExtension:
		return "extension"
	}
	return "unknown"
}

// Event is one change a subscription delivers.
type Event struct {
	// Kind is what changed: a list, or one resource.
	Kind EventKind
	// URI is the resource that changed (EventResourceUpdated only). It
	// must be an absolute URI.
	URI string
	// Subscribed, when URI is a sub-resource of a subscribed resource
	// (a file in a subscribed directory), is the URI the client named in
	// resourceSubscriptions; the event matches subscriptions to it and is
	// sent with URI. Empty: URI itself is what was subscribed.
	Subscribed string
	// Member is the filter member whose keys the event answers, such as
	// "taskIds" (EventExtension only; see [ExtensionFilter]).
	Member string
	// Key is the key of Member the event is about, such as a task id
	// (EventExtension only): it reaches the listeners that named the key.
	Key string
	// Method is the notification the event is sent as, such as
	// "notifications/tasks" (EventExtension only).
	Method string
	// Params is the notification's params, a JSON object without _meta
	// (EventExtension only; nil for none). The stream adds the
	// subscription id in _meta.
	Params json.RawMessage
}

// key is the URI a resource update matches subscriptions by.
func (e Event) key() string {
	if e.Subscribed != "" {
		return e.Subscribed
	}
	return e.URI
}

// ErrInvalidEvent reports an event that cannot be sent: an unknown kind,
// a resource update without an absolute URI, or an extension event
// without a filter member, a key or a notification method, or whose
// params are not a JSON object or carry _meta.
var ErrInvalidEvent = errors.New("dispatch: invalid subscription event")

// Validate returns ErrInvalidEvent when the event cannot be sent: an
// unknown kind, a resource update without an absolute URI, or an
// extension event without a filter member, a key or a notification
// method, or whose params are not a JSON object or carry _meta.
func (e Event) Validate() error { return e.check() }

// check reports whether the event can be sent.
func (e Event) check() error {
	switch e.Kind {
	case EventToolsListChanged, EventPromptsListChanged, EventResourcesListChanged:
		return nil
	case EventResourceUpdated:
		if checkAbsoluteURI(e.URI) == nil {
			return nil
		}
	case EventExtension:
		if e.checkExtension() == nil {
			return nil
		}
	}
	return ErrInvalidEvent
}

// EncodeEvent encodes ev as its notification frame (ASCII only, no
// newline). A valid subscriptionID is put in
// _meta["io.modelcontextprotocol/subscriptionId"], as every notification
// of a subscriptions/listen stream must carry; the zero ID leaves it out,
// for revisions that send these notifications outside any stream.
func EncodeEvent(ev Event, subscriptionID jsonrpc.ID) ([]byte, error) {
	if err := ev.check(); err != nil {
		return nil, err
	}
	if ev.Kind == EventExtension {
		return encodeExtensionEvent(ev, subscriptionID)
	}
	b := make([]byte, 0, 96+len(ev.URI))
	b = append(b, `{"jsonrpc":"2.0","method":"`...)
	b = append(b, ev.Kind.Method()...)
	b = append(b, '"')
	tagged := subscriptionID.IsValid()
	if ev.Kind == EventResourceUpdated || tagged {
		b = append(b, `,"params":{`...)
		if ev.Kind == EventResourceUpdated {
			b = append(b, `"uri":`...)
			b = jsonwire.AppendString(b, ev.URI)
			if tagged {
				b = append(b, ',')
			}
		}
		if tagged {
			b = appendSubscriptionMeta(b, subscriptionID)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendSubscriptionMeta appends "_meta":{"io.modelcontextprotocol/subscriptionId":id}.
func appendSubscriptionMeta(b []byte, id jsonrpc.ID) []byte {
	b = append(b, `"_meta":{"`+mcp.MetaSubscriptionID+`":`...)
	b = id.AppendJSON(b)
	return append(b, '}')
}

// encodeAcknowledged encodes notifications/subscriptions/acknowledged with
// the accepted filter, tagged with the stream's id.
func encodeAcknowledged(accepted mcp.SubscriptionFilter, id jsonrpc.ID) ([]byte, error) {
	body, err := jsonwire.Marshal(accepted)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 128+len(body))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":`...)
	b = append(b, body...)
	b = append(b, ',')
	b = appendSubscriptionMeta(b, id)
	return append(b, '}', '}'), nil
}
