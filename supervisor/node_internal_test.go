package supervisor

import (
	"testing"

	"github.com/snodo-go/snodo/internal/tree"
)

// The public kinds are the actors' own, value for value.
func TestKindsAreTheTreesKinds(t *testing.T) {
	for pub, internal := range map[Kind]tree.Kind{
		KindSupervisor: tree.KindSupervisor, KindExecutor: tree.KindExecutor, KindConnection: tree.KindConnection,
		KindListener: tree.KindListener, KindHandler: tree.KindHandler, KindWriter: tree.KindWriter,
		KindRequest: tree.KindRequest, KindSubscription: tree.KindSubscription, KindTaskRunner: tree.KindTaskRunner,
		KindTask: tree.KindTask, KindUnresponsive: tree.KindUnresponsive,
	} {
		if string(pub) != string(internal) {
			t.Errorf("supervisor kind %q is %q in the tree", pub, internal)
		}
	}
}
