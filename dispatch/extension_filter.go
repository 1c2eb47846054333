package dispatch

// The members extensions add to the filter of subscriptions/listen, and
// the events that answer them (EventExtension).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// ExtensionFilter is a member an extension adds to the filter of
// subscriptions/listen: an array of string keys, each naming one thing
// whose notifications the stream carries (the tasks extension's taskIds
// names tasks; their notifications/tasks follow). The client's keys
// arrive in mcp.SubscriptionFilter.Keys[Member]; the events that answer
// them are [EventExtension] events with the same Member and one Key,
// published to the hub like any other. A stream may name at most 1,000
// keys in each such member (and at most 1,000 resource URIs); more is
// -32602.
type ExtensionFilter struct {
	// Member is the member's name in the filter object, such as
	// "taskIds". It may not be a core member's name, nor one another
	// extension adds.
	Member string
	// Method is the notification the member's events are sent as, such
	// as "notifications/tasks".
	Method string
	// Allow, when set, runs when a stream opens with the client's keys
	// and returns those the request may follow; the others are left out
	// of the accepted filter (and so of the acknowledgement), and their
	// events never reach the stream. It is where an extension keeps one
	// principal's keys from another's (info carries the verified
	// principal). nil accepts every key. It runs on the stream's
	// goroutine with the stream's panic isolation and must not block
	// for long.
	Allow func(ctx context.Context, info *RequestInfo, keys []string) []string
}

// maxListenKeys bounds the keys one subscriptions/listen may name in each
// member an extension adds; more is -32602.
const maxListenKeys = 1000

// listenMember is an installed extension's filter member.
type listenMember struct {
	ext    *Extension
	filter ExtensionFilter
}

// addFilters registers an extension's filter members with the builder.
func (b *builder) addFilters(ext *Extension) error {
	for _, f := range ext.Filters {
		switch {
		case f.Member == "" || coreFilterMember(f.Member):
			return fmt.Errorf("dispatch: extension %q filter member %q collides with the core protocol", ext.ID, f.Member)
		case !strings.HasPrefix(f.Method, "notifications/") || len(f.Method) == len("notifications/"):
			return fmt.Errorf("dispatch: extension %q filter member %q: method %q is not a notification", ext.ID, f.Member, f.Method)
		}
		if other, dup := b.listenMembers[f.Member]; dup {
			return fmt.Errorf("dispatch: extension %q filter member %q is already added by %q", ext.ID, f.Member, other.ext.ID)
		}
		if b.listenMembers == nil {
			b.listenMembers = map[string]*listenMember{}
		}
		b.listenMembers[f.Member] = &listenMember{ext: ext, filter: f}
	}
	return nil
}

// coreFilterMember reports whether name is a member the core filter has.
func coreFilterMember(name string) bool {
	switch name {
	case "toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions":
		return true
	}
	return false
}

// offeredKeys limits the extension members of a requested filter to those
// an installed extension adds, for requests that declared it at a
// revision it serves, and to the keys its Allow keeps.
func (rt *Runtime) offeredKeys(ctx context.Context, c *Call, keys map[string][]string) map[string][]string {
	var out map[string][]string
	for member, list := range keys {
		m := rt.listenMembers[member]
		if m == nil || len(list) == 0 || !slices.Contains(m.ext.Versions, c.Info.ProtocolVersion) {
			continue
		}
		if _, declared := c.Info.ClientCapabilities.Extensions[m.ext.ID]; !declared {
			continue
		}
		kept := append([]string(nil), list...)
		if m.filter.Allow != nil {
			kept = m.filter.Allow(ctx, &c.Info, kept)
		}
		if len(kept) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[member] = dedupe(kept)
	}
	return out
}

// errInvalidExtensionEvent is why an EventExtension is refused.
var errInvalidExtensionEvent = errors.New("an extension event needs a filter member, a key, a notification method, and params that are a JSON object without _meta")

// checkExtension reports whether an EventExtension can be sent.
func (e Event) checkExtension() error {
	if e.Member == "" || e.Key == "" || !strings.HasPrefix(e.Method, "notifications/") {
		return errInvalidExtensionEvent
	}
	if len(e.Params) == 0 {
		return nil
	}
	p := bytes.TrimSpace(e.Params)
	if len(p) == 0 || p[0] != '{' || !json.Valid(p) {
		return errInvalidExtensionEvent
	}
	if _, ok := jsonwire.Member(p, "_meta"); ok {
		return errInvalidExtensionEvent
	}
	return nil
}

// encodeExtensionEvent encodes an EventExtension: its params compacted,
// every non-ASCII character escaped, and the subscription id added in
// _meta when it is valid.
func encodeExtensionEvent(ev Event, subscriptionID jsonrpc.ID) ([]byte, error) {
	b := make([]byte, 0, 128+len(ev.Params))
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = jsonwire.AppendString(b, ev.Method)
	tagged := subscriptionID.IsValid()
	var params []byte
	if len(ev.Params) > 0 {
		var c bytes.Buffer
		if err := json.Compact(&c, ev.Params); err != nil {
			return nil, err
		}
		params = jsonwire.EscapeNonASCII(c.Bytes())
	}
	switch {
	case tagged && (len(params) == 0 || string(params) == "{}"):
		b = append(b, `,"params":{`...)
		b = appendSubscriptionMeta(b, subscriptionID)
		b = append(b, '}')
	case tagged:
		b = append(b, `,"params":`...)
		b = append(b, params[:len(params)-1]...)
		b = append(b, ',')
		b = appendSubscriptionMeta(b, subscriptionID)
		b = append(b, '}')
	case len(params) > 0:
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}'), nil
}
