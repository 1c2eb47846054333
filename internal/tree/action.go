package tree

// Operators' actions on nodes of a running tree, for the supervisor's
// debug page.

import "errors"

// Actions an operator may take on a node (System.Act).
const (
	// ActionCancel cancels a request of a byte-stream connection as the
	// client's notifications/cancelled would: its handler's context
	// ends and nothing is answered for it.
	ActionCancel = "cancel"
	// ActionStop stops a byte-stream connection at once, as Conn.Stop
	// does, with ErrStoppedByOperator.
	ActionStop = "stop"
)

// ErrNoAction reports that no live node at the given path takes the
// action asked for.
var ErrNoAction = errors.New("no live node at that path takes that action")

// ErrStoppedByOperator is why a connection ended when an operator
// stopped it (ActionStop).
var ErrStoppedByOperator = errors.New("connection stopped by an operator")
