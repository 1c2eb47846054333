// The wire form of a SubscriptionFilter: the core members, and beside
// them the members extensions add (SubscriptionFilter.Keys).

package mcp

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// coreFilterMembers are the members of a filter the core protocol names;
// Keys never takes them.
var coreFilterMembers = map[string]bool{
	"toolsListChanged": true, "promptsListChanged": true,
	"resourcesListChanged": true, "resourceSubscriptions": true,
}

// plainFilter is SubscriptionFilter without its JSON methods.
type plainFilter SubscriptionFilter

// MarshalJSON encodes the core members, then each member of Keys (in
// name order) as an array of strings. A Keys member with a core name, or
// with no keys, is left out.
func (f SubscriptionFilter) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainFilter(f))
	if err != nil || len(f.Keys) == 0 {
		return b, err
	}
	names := make([]string, 0, len(f.Keys))
	for n, keys := range f.Keys {
		if !coreFilterMembers[n] && n != "" && len(keys) > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	b = b[:len(b)-1] // the closing brace
	for _, n := range names {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonwire.AppendString(b, n)
		b = append(b, ':')
		list, err := json.Marshal(f.Keys[n])
		if err != nil {
			return nil, err
		}
		b = append(b, list...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes the core members, and into Keys every other
// member that is an array of strings.
func (f *SubscriptionFilter) UnmarshalJSON(data []byte) error {
	var p plainFilter
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	for n, raw := range members {
		if coreFilterMembers[n] || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte{'['}) {
			continue
		}
		var keys []string
		if json.Unmarshal(raw, &keys) != nil || len(keys) == 0 {
			continue
		}
		if p.Keys == nil {
			p.Keys = map[string][]string{}
		}
		p.Keys[n] = keys
	}
	*f = SubscriptionFilter(p)
	return nil
}
