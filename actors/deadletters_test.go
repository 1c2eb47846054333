package actors

import (
	"context"
	"go/ast"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/internal/latecheck"
	"github.com/snodo-go/snodo/internal/tree"
)

// The message types kept out of protoactor's dead-letter log are exactly
// those listed as expected late, each with its reason: a type cannot be
// hidden without saying why, and a listed type is not logged.
func TestLateMessagesAreListedWithTheirReason(t *testing.T) {
	// A type is kept out of the log by its IgnoreDeadLetterLogging method.
	latecheck.Check(t, ".", lateMessages, func(file *ast.File) []string {
		var out []string
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "IgnoreDeadLetterLogging" {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			out = append(out, recv.(*ast.Ident).Name)
		}
		return out
	})
	// And the method is the one protoactor looks for.
	ignore := reflect.TypeFor[actor.IgnoreDeadLetterLogging]()
	for typ := range lateMessages {
		if !typ.Implements(ignore) {
			t.Errorf("%s is listed as expected late but protoactor would still log it (no IgnoreDeadLetterLogging method)", typ)
		}
	}
}

// unlistedMessage is a message type of no actor: it is never expected.
type unlistedMessage struct{}

// A dead letter of a listed type is expected and not counted; any other,
// protoactor's own system messages included, is counted and logged.
func TestUnexpectedDeadLettersAreCounted(t *testing.T) {
	var logged syncBuffer
	sys, err := newSystem(tree.SystemConfig{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sys.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	// A PID no actor has: every message to it is a dead letter.
	gone := actor.NewPID(sys.sys.Address(), "snodo/gone$1")
	// delivered sends msg and waits until it has been published as a dead
	// letter. The event stream calls its subscribers in turn, the system's
	// (subscribed when it started) before this one, so the count is final
	// by then.
	delivered := func(msg any) {
		t.Helper()
		published := make(chan struct{})
		sub := sys.sys.EventStream.Subscribe(func(evt any) {
			if dl, ok := evt.(*actor.DeadLetterEvent); ok && dl.Message == msg {
				close(published)
			}
		})
		defer sys.sys.EventStream.Unsubscribe(sub)
		sys.send(gone, msg)
		select {
		case <-published:
		case <-time.After(10 * time.Second):
			t.Fatalf("%T never became a dead letter", msg)
		}
	}
	delivered(&writeFrame{frame: []byte("x")})
	delivered(&inspect{reply: make(chan inspected, 1)})
	if n := sys.UnexpectedDeadLetters(); n != 0 {
		t.Fatalf("listed late messages were counted: %d", n)
	}
	delivered(&unlistedMessage{})
	if n := sys.UnexpectedDeadLetters(); n != 1 {
		t.Fatalf("an unlisted message: %d unexpected dead letters, want 1", n)
	}
	if !strings.Contains(logged.String(), "message reached a stopped actor") || !strings.Contains(logged.String(), "unlistedMessage") {
		t.Fatalf("the unexpected dead letter was not logged with its type:\n%s", logged.String())
	}
	if lateMessage(&actor.Stop{}) || lateMessage(&actor.Terminated{}) {
		t.Fatal("protoactor's system messages must never be expected late")
	}
}
