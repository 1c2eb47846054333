package latecheck

// Check on the packages under testdata: a complete list passes, and each
// way a list can disagree with the source is reported.

import (
	"fmt"
	"go/ast"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Types named as those in testdata/marked.
type (
	kept     struct{}
	other    struct{}
	plain    struct{}
	fromTest struct{}
)

// embedsLate names the struct types that embed late.
func embedsLate(file *ast.File) []string {
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			for _, fd := range st.Fields.List {
				if id, ok := fd.Type.(*ast.Ident); ok && len(fd.Names) == 0 && id.Name == "late" {
					out = append(out, ts.Name.Name)
				}
			}
		}
		return false
	})
	return out
}

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}

func (r *recorder) Fatalf(format string, a ...any) {
	r.Errorf(format, a...)
	r.mu.Lock()
	r.fatal = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(a ...any) { r.Fatalf("%s", fmt.Sprint(a...)) }

// run calls Check as a test would, on its own goroutine so that Fatal
// can end it.
func run(t *testing.T, dir string, listed map[reflect.Type]string) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, dir, listed, embedsLate)
	}()
	<-done
	return r
}

func TestCheck(t *testing.T) {
	typ := func(v any) reflect.Type { return reflect.TypeOf(v) }
	cases := []struct {
		name   string
		dir    string
		listed map[reflect.Type]string
		want   []string // a fragment of each report, in any order
		fatal  bool
	}{
		{"complete", "testdata/marked", map[reflect.Type]string{typ(&kept{}): "a reason", typ(&other{}): "another"}, nil, false},
		{"a type without its pointer", "testdata/marked", map[reflect.Type]string{typ(kept{}): "a reason", typ(&other{}): "another"}, nil, false},
		{"no reason", "testdata/marked", map[reflect.Type]string{typ(&kept{}): "a reason", typ(&other{}): " "},
			[]string{"other is listed as expected late without a reason"}, false},
		{"a marked type not listed", "testdata/marked", map[reflect.Type]string{typ(&kept{}): "a reason"},
			[]string{"not listed with a reason: [other]"}, false},
		{"a listed type not marked", "testdata/marked", map[reflect.Type]string{typ(&kept{}): "a reason", typ(&other{}): "another", typ(&plain{}): "why"},
			[]string{"plain is listed as expected late but its type is not marked"}, false},
		{"a type marked in a test file only", "testdata/marked", map[reflect.Type]string{typ(&kept{}): "a reason", typ(&other{}): "another", typ(&fromTest{}): "why"},
			[]string{"fromTest is listed as expected late but its type is not marked"}, false},
		{"nothing marked", "testdata/none", nil, []string{"no type in testdata/none is marked"}, true},
	}
	for _, c := range cases {
		r := run(t, c.dir, c.listed)
		if r.fatal != c.fatal || len(r.errors) != len(c.want) {
			t.Errorf("%s: reports %q (fatal %v), want %d (fatal %v)", c.name, r.errors, r.fatal, len(c.want), c.fatal)
			continue
		}
		for _, w := range c.want {
			found := false
			for _, e := range r.errors {
				found = found || strings.Contains(e, w)
			}
			if !found {
				t.Errorf("%s: reports %q, want one with %q", c.name, r.errors, w)
			}
		}
	}
}
