// Package lib is the counter's test package: every case the rule names.
package lib

// Documented is a function with a doc comment.
func Documented() {}

func Bare() {}

func unexported() {}

// Limits are grouped constants that share the group's comment.
const (
	Low  = 1
	High = 2
	low  = 0
)

const Lone = 3

var (
	// Ready has its own comment.
	Ready bool
	Gone  bool // Gone is documented at the end of its line.
	Naked bool
)

// Pair is a struct with every kind of field.
type Pair struct {
	// Left is documented above.
	Left  int
	Right int // Right is documented at the end of its line.
	Bare  int
	inner int
	Base
	// Nested is a struct-typed field.
	Nested struct {
		// Deep is documented.
		Deep  int
		Shown int
	}
}

// Base is embedded in Pair.
type Base struct{}

// Method is documented.
func (p *Pair) Method() {}

func (p Pair) BareMethod() {}

func (p *Pair) hidden() {}

type private struct{ Field int }

// Exported on an unexported type does not count.
func (private) Exported() {}

// Doer is an interface; its methods are not counted.
type Doer interface {
	// Do is documented.
	Do()
	Undone()
	undo()
}

// Box is generic.
type Box[T any] struct{}

// Get has a generic receiver.
func (b *Box[T]) Get() {}

type Naked2 int
