package stdio

// Connection names, held by the supervision tree a transport runs in.

import (
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/supervisor"
)

// Lookup returns the running transport that was given name with
// [WithName] and runs in sup's tree ([WithSupervisor]).
func Lookup(sup *supervisor.Supervisor, name string) (*Conn, bool) {
	if sup == nil {
		return nil, false
	}
	v, ok := tree.SystemOf(sup).Named(nameKey(name))
	if !ok {
		return nil, false
	}
	c, ok := v.(*Conn)
	return c, ok
}

// nameKey is name's key among the names of the tree.
func nameKey(name string) string { return "stdio/" + name }
