// This file walks the module and counts each package's exported names,
// methods and fields.

package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skippedTop are the module's top-level directories that hold no library
// code: runnable examples, the conformance runner and the benchmarks.
var skippedTop = map[string]bool{"examples": true, "conformance": true, "bench": true}

// skippedAnywhere are directory names left out wherever they appear.
var skippedAnywhere = map[string]bool{"internal": true, "testdata": true, "vendor": true}

// Package is the exported surface of one package.
type Package struct {
	// Dir is the package's directory relative to the module root, with
	// forward slashes ("." for the root).
	Dir string
	// Names counts the exported top-level names and the exported methods
	// of exported types.
	Names int
	// Fields counts the exported fields of exported struct types.
	Fields int
	// Undocumented lists, as "dir/file:line: name", every exported name
	// and field without a doc comment, and every file without an opening
	// comment (above or below its package clause, before its first
	// import or declaration) naming the file's one job, in file and line
	// order.
	Undocumented []string
	// Exported lists the counted names (Type.Method for a method), sorted.
	Exported []string
}

// Measure walks the module rooted at root and returns the surface of each
// library package that exports anything, sorted by directory.
func Measure(root string) ([]Package, error) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("%s is not a module root: %w", root, err)
	}
	var pkgs []Package
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." {
			name := d.Name()
			if skippedAnywhere[name] || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				(!strings.Contains(rel, "/") && skippedTop[name]) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a sibling module
			}
		}
		pkg, err := measureDir(path, rel)
		if err != nil {
			return err
		}
		if pkg.Names > 0 || pkg.Fields > 0 {
			pkgs = append(pkgs, pkg)
		}
		return nil
	})
	return pkgs, err
}

// measureDir counts the exported surface of the package in dir.
func measureDir(dir, rel string) (Package, error) {
	pkg := Package{Dir: rel}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return pkg, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return pkg, err
		}
		if f.Name.Name == "main" || ignored(f) {
			continue
		}
		files = append(files, f)
	}
	c := &counter{fset: fset, dir: rel, seen: map[string]bool{}, undocumented: map[string]finding{}}
	for _, f := range files {
		if !hasOpening(f) {
			p := fset.Position(f.Package)
			c.undocumented["file:"+p.Filename] = finding{pos: p,
				text: fmt.Sprintf("%s/%s:%d: the file has no opening comment naming its job", rel, filepath.Base(p.Filename), p.Line)}
		}
	}
	// Exported types first, so that methods can be matched to them.
	exportedTypes := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, spec := range g.Specs {
					if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
						exportedTypes[ts.Name.Name] = true
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				c.funcDecl(d, exportedTypes)
			case *ast.GenDecl:
				c.genDecl(d)
			}
		}
	}
	pkg.Names = c.names
	pkg.Fields = c.fields
	pkg.Exported = slices.Sorted(slices.Values(c.exported))
	findings := slices.Collect(maps.Values(c.undocumented))
	slices.SortFunc(findings, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Line, b.pos.Line),
			cmp.Compare(a.text, b.text))
	})
	for _, f := range findings {
		pkg.Undocumented = append(pkg.Undocumented, f.text)
	}
	return pkg, nil
}

// ignored reports whether f's build constraint can never hold without
// the tag "ignore", the convention for files that are not part of the
// package (tools run with go run, generators).
func ignored(f *ast.File) bool {
	for _, group := range f.Comments {
		if group.Pos() >= f.Package {
			break
		}
		for _, line := range group.List {
			expr, err := constraint.Parse(line.Text)
			if err != nil {
				continue
			}
			others := func(value bool) func(string) bool {
				return func(tag string) bool { return tag != "ignore" && value }
			}
			if !expr.Eval(others(true)) && !expr.Eval(others(false)) {
				return true
			}
		}
	}
	return false
}

// hasOpening reports whether f has a comment, other than build
// constraints and directives, before its first import or declaration.
func hasOpening(f *ast.File) bool {
	end := f.End()
	if len(f.Decls) > 0 {
		end = f.Decls[0].Pos()
	}
	for _, group := range f.Comments {
		if group.Pos() >= end {
			break
		}
		for _, line := range group.List {
			if !constraint.IsGoBuild(line.Text) && !constraint.IsPlusBuild(line.Text) && !strings.HasPrefix(line.Text, "//go:") {
				return true
			}
		}
	}
	return false
}

// counter accumulates one package's counts. A name declared in several
// files (one per build tag) is counted once; it is undocumented when any
// of its declarations is.
type counter struct {
	fset         *token.FileSet
	dir          string
	names        int
	fields       int
	exported     []string
	seen         map[string]bool
	undocumented map[string]finding
}

// finding is one undocumented identifier.
type finding struct {
	pos  token.Position
	text string
}

// kind is what an exported identifier is, for counting.
type kind int

const (
	nameKind            kind = iota // a top-level name or a method: counted in Names
	fieldKind                       // a struct field: counted in Fields
	interfaceMethodKind             // part of its interface's declaration: not counted, but must be documented
)

// suffix marks the kinds that are not names in the undocumented list.
var suffix = map[kind]string{fieldKind: " (field)", interfaceMethodKind: " (interface method)"}

// add counts the exported identifier key of kind k, declared at pos, and
// records it when it has no doc comment.
func (c *counter) add(key string, pos token.Pos, doc bool, k kind) {
	if !c.seen[key] {
		c.seen[key] = true
		switch k {
		case nameKind:
			c.names++
			c.exported = append(c.exported, key)
		case fieldKind:
			c.fields++
		}
	}
	if !doc {
		if _, ok := c.undocumented[key]; !ok {
			p := c.fset.Position(pos)
			text := fmt.Sprintf("%s/%s:%d: %s%s", c.dir, filepath.Base(p.Filename), p.Line, key, suffix[k])
			c.undocumented[key] = finding{pos: p, text: text}
		}
	}
}

func (c *counter) funcDecl(d *ast.FuncDecl, exportedTypes map[string]bool) {
	if !d.Name.IsExported() {
		return
	}
	if d.Recv == nil {
		c.add(d.Name.Name, d.Name.Pos(), documented(d.Doc), nameKind)
		return
	}
	recv := receiverName(d.Recv.List[0].Type)
	if !exportedTypes[recv] {
		return
	}
	c.add(recv+"."+d.Name.Name, d.Name.Pos(), documented(d.Doc), nameKind)
}

// receiverName returns the type name of a method receiver: T, *T, T[P]
// and *T[P] all give T.
func receiverName(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

func (c *counter) genDecl(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.ValueSpec:
			// A grouped constant or variable may take the group's doc.
			doc := documented(s.Doc) || documented(s.Comment) || documented(d.Doc)
			for _, name := range s.Names {
				if name.IsExported() {
					c.add(name.Name, name.Pos(), doc, nameKind)
				}
			}
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			doc := documented(s.Doc) || documented(d.Doc)
			c.add(s.Name.Name, s.Name.Pos(), doc, nameKind)
			c.typeMembers(s.Name.Name, s.Type)
		}
	}
}

// typeMembers counts the exported fields of a struct type and the
// exported methods of an interface type, descending into nested struct
// types. prefix names the enclosing type (and field) for the report.
func (c *counter) typeMembers(prefix string, expr ast.Expr) {
	switch t := expr.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			// An embedded field is not counted: its type is counted where
			// it is declared.
			doc := documented(f.Doc) || documented(f.Comment)
			for _, name := range f.Names {
				if name.IsExported() {
					c.add(prefix+"."+name.Name, name.Pos(), doc, fieldKind)
					c.typeMembers(prefix+"."+name.Name, f.Type)
				}
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			if _, ok := m.Type.(*ast.FuncType); !ok {
				continue // an embedded interface or a type constraint
			}
			doc := documented(m.Doc) || documented(m.Comment)
			for _, name := range m.Names {
				if name.IsExported() {
					c.add(prefix+"."+name.Name, name.Pos(), doc, interfaceMethodKind)
				}
			}
		}
	case *ast.StarExpr:
		c.typeMembers(prefix, t.X)
	case *ast.ArrayType:
		c.typeMembers(prefix, t.Elt)
	case *ast.MapType:
		c.typeMembers(prefix, t.Value)
	}
}

// documented reports whether a comment group holds any text.
func documented(g *ast.CommentGroup) bool {
	return g != nil && strings.TrimSpace(g.Text()) != ""
}
