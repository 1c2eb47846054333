package supervisor

// Renderings of the live tree, for operators and tests.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Format is a rendering of the tree, one of these values:
//
//   - "json" is indented JSON: each node an object with kind, id, attrs
//     and children, the shape [Node] decodes from.
//   - "text" is the indented text of [Node.String].
//   - "html" is the debug page: the tree's counts, the executor's gauges
//     and a bounded view of the tree (see [PageLimits]) as HTML that
//     needs no script, with a script that keeps it live.
//   - "events" is the page's event stream (text/event-stream): an event
//     of type "tree" whose data is the bounded view as JSON each time
//     the tree is seen to change, at most once per
//     PageLimits.Interval. Only the debug handler serves it; Render
//     refuses it.
type Format string

// The renderings the package itself names.
const (
	formatJSON   Format = "json"
	formatText   Format = "text"
	formatHTML   Format = "html"
	formatEvents Format = "events"
)

// ErrUnknownFormat is returned by Render for a format it does not know.
var ErrUnknownFormat = errors.New("supervisor: unknown tree format")

// Render takes a snapshot of the live tree and writes it in format f:
// the executor with its counts; each connection with its writer and its
// requests (method, id, state, age, deadline); each listener or handler
// with its requests (and their peers); each subscription stream under
// its request. It is what an operator reads to see what a running server
// is doing, and what a test can log when an assertion fails.
//
// "html" writes the debug page as [Supervisor.Handler] serves it: a
// bounded view of the tree with the default [PageLimits].
func (s *Supervisor) Render(w io.Writer, f Format) error {
	return renderTree(w, s.Tree(), f)
}

func renderTree(w io.Writer, n *Node, f Format) error {
	switch f {
	case formatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(n)
	case formatText:
		_, err := io.WriteString(w, n.String())
		return err
	case formatHTML:
		l := PageLimits{}.withDefaults()
		return writePage(w, summarize(n, time.Now(), l.MaxChildren, l.MaxNodes, ""))
	}
	return fmt.Errorf("%w %q", ErrUnknownFormat, f)
}
