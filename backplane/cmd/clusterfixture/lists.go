// This file is the fixture's Lists over the shared catalog: a trigger
// tool called on any instance adds or removes its component on all.

package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
)

// sharedLists toggles the dynamic components in the catalog every
// instance shares.
type sharedLists struct {
	catalog *backplane.Catalog // this instance's
	all     *catalogSet
}

func (l *sharedLists) Catalog() dispatch.Catalog { return l.catalog.Registry() }

// Toggle reads whether the component is present here, writes the
// opposite to the catalog, and waits until every instance has applied
// that version. A deployment waits for its own instance at most
// (backplane.Catalog.Wait); this one, whose instances all live in this
// process, waits for each, so that the next request, wherever the
// proxy sends it, lists what the trigger left (the suite lists right
// after a trigger) and every listen stream has heard the change.
func (l *sharedLists) Toggle(ctx context.Context, kind dispatch.ComponentKind, name string) (bool, error) {
	var comp backplane.Component
	switch kind {
	case dispatch.KindTool:
		comp = backplane.Tool(name)
	case dispatch.KindPrompt:
		comp = backplane.Prompt(name)
	default:
		return false, fmt.Errorf("clusterfixture: no dynamic component %q of kind %d", name, kind)
	}
	_, present := l.catalog.Registry().Components().Without(kind, name)
	var v uint64
	var err error
	if present {
		v, err = l.catalog.Remove(ctx, comp)
	} else {
		v, err = l.catalog.Add(ctx, comp)
	}
	if err != nil {
		return false, err
	}
	for _, c := range l.all.list() {
		if err := c.Wait(ctx, v); err != nil {
			return false, err
		}
	}
	return !present, nil
}

// catalogSet is every instance's catalog, added as each starts.
type catalogSet struct {
	mu sync.Mutex
	cs []*backplane.Catalog
}

func (s *catalogSet) add(c *backplane.Catalog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cs = append(s.cs, c)
}

func (s *catalogSet) list() []*backplane.Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*backplane.Catalog(nil), s.cs...)
}
