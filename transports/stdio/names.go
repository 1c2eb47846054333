package stdio

import (
	"fmt"
	"sync"
)

// names maps the names given with WithName to running transports. A name
// is claimed when its transport starts and released when it ends.
var names = &registry{m: map[string]*Conn{}}

type registry struct {
	mu sync.Mutex
	m  map[string]*Conn
}

func (r *registry) claim(name string, c *Conn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.m[name]; taken {
		return fmt.Errorf("stdio: a transport named %q is already running", name)
	}
	r.m[name] = c
	return nil
}

func (r *registry) release(name string, c *Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[name] == c {
		delete(r.m, name)
	}
}

// Lookup returns the running transport registered under name with
// [WithName].
func Lookup(name string) (*Conn, bool) {
	names.mu.Lock()
	defer names.mu.Unlock()
	c, ok := names.m[name]
	return c, ok
}
