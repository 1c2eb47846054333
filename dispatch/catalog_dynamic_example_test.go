// The runnable example of a Catalog of one's own.

package dispatch_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// swapCatalog is the smallest Catalog: the current version behind an
// atomic pointer, replaced whole.
type swapCatalog struct {
	cur atomic.Pointer[dispatch.Components]
}

func (c *swapCatalog) Components() *dispatch.Components { return c.cur.Load() }

func (c *swapCatalog) Adopt(own *dispatch.Components) error {
	next, err := c.cur.Load().With(own)
	if err != nil {
		return err
	}
	c.cur.Store(next)
	return nil
}

// Any Catalog serves a Runtime's components (hub.Registry is a ready
// one). Components are built and checked with the same code as New, and
// each request reads the version that is current when it arrives.
func ExampleWithCatalog() {
	ok := func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("ok"), nil
	}
	cat := &swapCatalog{}
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		dispatch.WithCatalog(cat),
		dispatch.WithTool(mcp.Tool{Name: "static"}, ok)) // moves into cat
	if err != nil {
		panic(err)
	}
	later, err := dispatch.NewComponents(dispatch.WithTool(mcp.Tool{Name: "later"}, ok))
	if err != nil {
		panic(err)
	}
	next, err := cat.Components().With(later)
	if err != nil {
		panic(err)
	}
	cat.cur.Store(next)
	_, err = cat.Components().With(later) // the name is taken
	fmt.Println(err)
	for _, t := range rt.Tools() {
		fmt.Println(t.Name)
	}
	// Output:
	// dispatch: tool "later" is already registered
	// later
	// static
}
