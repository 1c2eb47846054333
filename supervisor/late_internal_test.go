package supervisor

import (
	"go/ast"
	"testing"

	"github.com/snodo-go/snodo/internal/latecheck"
)

// The message types kept out of protoactor's dead-letter log (those that
// embed late) are exactly those listed in lateMessages, each with its
// reason.
func TestLateMessagesAreListedWithTheirReason(t *testing.T) {
	latecheck.Check(t, ".", lateMessages, func(file *ast.File) []string {
		var out []string
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fd := range st.Fields.List {
				if id, ok := fd.Type.(*ast.Ident); ok && len(fd.Names) == 0 && id.Name == "late" {
					out = append(out, ts.Name.Name)
				}
			}
			return false
		})
		return out
	})
}
