package supervisor

import (
	"testing"

	"github.com/snodo-go/snodo/internal/tree"
)

// The public kinds are the actors' own, value for value.
func TestKindsAreTheTreesKinds(t *testing.T) {
	for pub, internal := range map[Kind]tree.Kind{
		kindSupervisor: tree.KindSupervisor, kindExecutor: tree.KindExecutor, kindConnection: tree.KindConnection,
		kindListener: tree.KindListener, kindHandler: tree.KindHandler, kindWriter: tree.KindWriter,
		kindRequest: tree.KindRequest, kindSubscription: tree.KindSubscription, kindTaskRunner: tree.KindTaskRunner,
		kindTask: tree.KindTask, kindUnresponsive: tree.KindUnresponsive,
	} {
		if string(pub) != string(internal) {
			t.Errorf("supervisor kind %q is %q in the tree", pub, internal)
		}
	}
}
