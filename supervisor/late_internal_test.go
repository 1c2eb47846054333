package supervisor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The message types kept out of protoactor's dead-letter log (those that
// embed late) are exactly those listed in lateMessages, each with its
// reason.
func TestLateMessagesAreListedWithTheirReason(t *testing.T) {
	hidden := map[string]bool{}
	fset := token.NewFileSet()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
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
					hidden[ts.Name.Name] = true
				}
			}
			return false
		})
	}
	if len(hidden) == 0 {
		t.Fatal("no message type embeds late: the parse found nothing")
	}
	listed := map[string]bool{}
	for typ, reason := range lateMessages {
		name := typ.Elem().Name()
		listed[name] = true
		if strings.TrimSpace(reason) == "" {
			t.Errorf("%s is listed without a reason", name)
		}
		if !hidden[name] {
			t.Errorf("%s is listed as expected late but does not embed late", name)
		}
	}
	for name := range hidden {
		if !listed[name] {
			t.Errorf("%s skips dead-letter logging but is not in lateMessages with its reason", name)
		}
	}
}
