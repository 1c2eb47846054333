// Command mutate checks that the tests notice when a guard is removed.
//
// A guard is a condition in the library marked with a comment naming it,
// at the end of the line that holds the condition (an if, for or case
// condition) or alone on the line before it:
//
//	if f.cancelled != nil && f.cancelled.Load() { // mutation: writer-drops-cancelled-frame
//
// The list (.ci/mutants by default) names each marker, how to mutate its
// condition, and the tests that must notice:
//
//	# marker                      mutation  tests                                       packages
//	writer-drops-cancelled-frame  never     ^TestWriterDropsAFrameCancelledWhileItWaits$ ./actors
//
// A mutation is "never" (the condition acts as (cond) && false: the guard
// never fires), "always" ((cond) || true: it always fires) or "negate"
// (!(cond)). The condition is still evaluated, so a check with a side
// effect (a compare-and-swap) keeps it and only its verdict is ignored.
//
// The source tree is never modified. Every marked condition is rewritten,
// in copies put in place with go test -overlay, to act as its mutant when
// the environment variable SNODO_MUTANT names its marker and as written
// otherwise, so each listed package's tests are compiled once. Then, for
// each entry, the named tests run with no mutant (they must run and
// pass) and with the entry's mutant; a mutant they still pass with has
// survived, and the command exits 1. A marker missing from the code, a
// marker in the code missing from the list, and a test pattern that runs
// nothing are errors (exit 2).
//
//	go run ./internal/cmd/mutate                  # every entry of .ci/mutants
//	go run ./internal/cmd/mutate -v writer-drops-cancelled-frame
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	list := flag.String("list", ".ci/mutants", "the list of guarded conditions and the tests that must notice their removal")
	race := flag.Bool("race", false, "run the tests with the race detector")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout for each run (a mutant that hangs is killed by it)")
	verbose := flag.Bool("v", false, "print the failures that killed each mutant")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	r := runner{root: root, race: *race, timeout: *timeout, verbose: *verbose, out: os.Stdout}
	survived, err := r.run(*list, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	if survived > 0 {
		fmt.Fprintf(os.Stderr, "mutate: %d mutant(s) survived: the tests named for them pass without the guard\n", survived)
		os.Exit(1)
	}
}

// entry is one line of the list.
type entry struct {
	marker   string
	mutation string
	pattern  string
	packages []string
	line     int // in the list, for messages
}

var mutations = map[string]func(cond string) string{
	"never":  func(c string) string { return "(" + c + ") && false" },
	"always": func(c string) string { return "(" + c + ") || true" },
	"negate": func(c string) string { return "!(" + c + ")" },
}

var markerName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// parseList reads the list: one entry a line, fields separated by
// blanks, # starts a comment.
func parseList(r io.Reader) ([]entry, error) {
	var out []entry
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: want fields: marker, mutation, test pattern, packages", n)
		}
		e := entry{marker: f[0], mutation: f[1], pattern: f[2], packages: f[3:], line: n}
		if !markerName.MatchString(e.marker) {
			return nil, fmt.Errorf("line %d: marker %q: use lower-case words joined by dashes", n, e.marker)
		}
		if mutations[e.mutation] == nil {
			return nil, fmt.Errorf("line %d: mutation %q: want never, always or negate", n, e.mutation)
		}
		if _, err := regexp.Compile(e.pattern); err != nil {
			return nil, fmt.Errorf("line %d: test pattern: %w", n, err)
		}
		for _, p := range e.packages {
			if !strings.HasPrefix(p, "./") {
				return nil, fmt.Errorf("line %d: package %q: want a relative path such as ./actors", n, p)
			}
		}
		if prev, dup := seen[e.marker]; dup {
			return nil, fmt.Errorf("line %d: marker %s already listed on line %d", n, e.marker, prev)
		}
		seen[e.marker] = n
		out = append(out, e)
	}
	return out, sc.Err()
}

// site is a marked condition in the code.
type site struct {
	marker     string
	pkg        string // the package's name
	file       string // absolute
	line       int    // of the condition
	start, end int    // byte offsets of the condition in the file
}

var markerComment = regexp.MustCompile(`^//\s*mutation:\s*(\S+)\s*$`)

// findSites parses every non-test Go file of the module (not its sibling
// modules, testdata or dot directories) and returns the marked
// conditions by marker.
func findSites(root string) (map[string]site, error) {
	sites := map[string]site{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a sibling module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte("mutation:")) {
			return nil
		}
		found, err := sitesIn(path, src)
		if err != nil {
			return err
		}
		for marker, s := range found {
			if prev, dup := sites[marker]; dup {
				return fmt.Errorf("marker %s appears twice: %s:%d and %s:%d", marker, rel(root, prev.file), prev.line, rel(root, s.file), s.line)
			}
			sites[marker] = s
		}
		return nil
	})
	return sites, err
}

// sitesIn finds the marked conditions of one file.
func sitesIn(path string, src []byte) (map[string]site, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	// Conditions by the line they start on.
	conds := map[int][]ast.Expr{}
	ast.Inspect(f, func(n ast.Node) bool {
		var c ast.Expr
		switch n := n.(type) {
		case *ast.IfStmt:
			c = n.Cond
		case *ast.ForStmt:
			c = n.Cond
		case *ast.CaseClause:
			if len(n.List) == 1 {
				c = n.List[0]
			}
		}
		if c != nil {
			line := fset.Position(c.Pos()).Line
			conds[line] = append(conds[line], c)
		}
		return true
	})
	out := map[string]site{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := markerComment.FindStringSubmatch(c.Text)
			if m == nil {
				if strings.Contains(c.Text, "mutation:") && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), "mutation:") {
					return nil, fmt.Errorf("%s: malformed marker %q: want // mutation: name", fset.Position(c.Pos()), c.Text)
				}
				continue
			}
			marker := m[1]
			if !markerName.MatchString(marker) {
				return nil, fmt.Errorf("%s: marker %q: use lower-case words joined by dashes", fset.Position(c.Pos()), marker)
			}
			pos := fset.Position(c.Pos())
			line := pos.Line
			if alone(src, pos.Offset) {
				line++ // a comment alone on its line marks the next one
			}
			cs := conds[line]
			switch len(cs) {
			case 0:
				return nil, fmt.Errorf("%s: marker %s: no if, for or case condition on line %d", pos, marker, line)
			case 1:
			default:
				return nil, fmt.Errorf("%s: marker %s: %d conditions on line %d; put the one meant on a line of its own", pos, marker, len(cs), line)
			}
			if _, dup := out[marker]; dup {
				return nil, fmt.Errorf("%s: marker %s appears twice", pos, marker)
			}
			out[marker] = site{marker: marker, pkg: f.Name.Name, file: path, line: line, start: fset.Position(cs[0].Pos()).Offset, end: fset.Position(cs[0].End()).Offset}
		}
	}
	return out, nil
}

// alone reports whether only blanks precede offset on its line.
func alone(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}

// switchFunc is the function an instrumented condition asks whether its
// mutant is the one under test; switchEnv names the mutant.
const (
	switchFunc = "mutationActive"
	switchEnv  = "SNODO_MUTANT"
)

// instrument returns the file's source with every site's condition made
// to behave as its mutant while that mutant is active, and as written
// otherwise: one build then serves every mutant.
func instrument(src []byte, sites []site, mutation map[string]string) []byte {
	sorted := slices.Clone(sites)
	slices.SortFunc(sorted, func(a, b site) int { return b.start - a.start }) // from the end, so offsets hold
	out := bytes.Clone(src)
	for _, s := range sorted {
		cond := "(" + string(src[s.start:s.end]) + ")"
		active := switchFunc + "(" + strconv.Quote(s.marker) + ")"
		var m string
		switch mutation[s.marker] {
		case "never":
			m = "(" + cond + " && !" + active + ")"
		case "always":
			m = "(" + cond + " || " + active + ")"
		case "negate":
			m = "(" + cond + " != " + active + ")"
		}
		out = append(out[:s.start:s.start], append([]byte(m), out[s.end:]...)...)
	}
	return out
}

// switchFile is the source added to a package with sites.
func switchFile(pkg string) []byte {
	return []byte("package " + pkg + "\n\nimport \"os\"\n\n" +
		"var mutationUnderTest = os.Getenv(\"" + switchEnv + "\")\n\n" +
		"func " + switchFunc + "(marker string) bool { return marker == mutationUnderTest }\n")
}

type runner struct {
	root    string
	race    bool
	timeout time.Duration
	verbose bool
	out     io.Writer
}

// run checks the list's entries (only those named, if any) and returns
// how many mutants survived.
func (r runner) run(listPath string, only []string) (int, error) {
	f, err := os.Open(filepath.Join(r.root, listPath))
	if err != nil {
		return 0, err
	}
	entries, err := parseList(f)
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", listPath, err)
	}
	if len(entries) == 0 {
		return 0, fmt.Errorf("%s lists no guard", listPath)
	}
	sites, err := findSites(r.root)
	if err != nil {
		return 0, err
	}
	var problems []string
	listed := map[string]bool{}
	for _, e := range entries {
		listed[e.marker] = true
		if _, ok := sites[e.marker]; !ok {
			problems = append(problems, fmt.Sprintf("%s:%d: marker %s is not in the code (// mutation: %s)", listPath, e.line, e.marker, e.marker))
		}
	}
	for marker, s := range sites {
		if !listed[marker] {
			problems = append(problems, fmt.Sprintf("%s:%d: marker %s is not in %s", rel(r.root, s.file), s.line, marker, listPath))
		}
	}
	for _, name := range only {
		if !listed[name] {
			problems = append(problems, fmt.Sprintf("%s is not listed in %s", name, listPath))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return 0, errors.New(strings.Join(problems, "\n"))
	}
	if len(only) > 0 {
		entries = slices.DeleteFunc(entries, func(e entry) bool { return !slices.Contains(only, e.marker) })
	}
	tmp, err := os.MkdirTemp("", "snodo-mutate")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)

	// One overlay instruments every site; one test binary per package.
	overlay, err := r.writeOverlay(tmp, entries, sites)
	if err != nil {
		return 0, err
	}
	binaries := map[string]string{}
	for _, e := range entries {
		for _, pkg := range e.packages {
			if _, ok := binaries[pkg]; ok {
				continue
			}
			bin := filepath.Join(tmp, fmt.Sprintf("pkg%d.test", len(binaries)))
			if out, err := r.buildTest(overlay, pkg, bin); err != nil {
				return 0, fmt.Errorf("building the tests of %s with the guards instrumented:\n%s", pkg, out)
			}
			binaries[pkg] = bin
		}
	}

	survived := 0
	for _, e := range entries {
		s := sites[e.marker]
		where := fmt.Sprintf("%s:%d", rel(r.root, s.file), s.line)
		start := time.Now()
		ran, out, failed := r.runTests(binaries, e, "")
		switch {
		case failed:
			return survived, fmt.Errorf("%s: the tests fail without any mutation:\n%s", e.marker, out)
		case ran == 0:
			return survived, fmt.Errorf("%s: -run %q in %s runs no test", e.marker, e.pattern, strings.Join(e.packages, " "))
		}
		ran, out, failed = r.runTests(binaries, e, e.marker)
		took := time.Since(start).Round(100 * time.Millisecond)
		if !failed && ran > 0 {
			survived++
			fmt.Fprintf(r.out, "SURVIVED %s (%s, %s): %s passes in %s (%s)\n", e.marker, where, e.mutation, e.pattern, strings.Join(e.packages, " "), took)
			continue
		}
		fmt.Fprintf(r.out, "killed   %s (%s, %s) by %s in %s (%s)\n", e.marker, where, e.mutation, e.pattern, strings.Join(e.packages, " "), took)
		if r.verbose {
			fmt.Fprint(r.out, indent(failures(out)))
		}
	}
	return survived, nil
}

// writeOverlay writes the instrumented files and the switch of each
// package with sites, and the go build overlay that puts them in place.
func (r runner) writeOverlay(tmp string, entries []entry, sites map[string]site) (string, error) {
	mutation := map[string]string{}
	byFile := map[string][]site{}
	pkgOf := map[string]string{} // directory → package name
	for _, e := range entries {
		s := sites[e.marker]
		mutation[e.marker] = e.mutation
		byFile[s.file] = append(byFile[s.file], s)
		dir := filepath.Dir(s.file)
		if p, ok := pkgOf[dir]; ok && p != s.pkg {
			return "", fmt.Errorf("%s holds packages %s and %s", dir, p, s.pkg)
		}
		pkgOf[dir] = s.pkg
	}
	replace := map[string]string{}
	n := 0
	write := func(target string, b []byte) error {
		n++
		path := filepath.Join(tmp, fmt.Sprintf("%d-%s", n, filepath.Base(target)))
		replace[target] = path
		return os.WriteFile(path, b, 0o644)
	}
	for file, ss := range byFile {
		src, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		if err := write(file, instrument(src, ss, mutation)); err != nil {
			return "", err
		}
	}
	for dir, pkg := range pkgOf {
		if err := write(filepath.Join(dir, "zz_mutation_switch.go"), switchFile(pkg)); err != nil {
			return "", err
		}
	}
	b, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(tmp, "overlay.json")
	return overlay, os.WriteFile(overlay, b, 0o644)
}

// buildTest compiles the test binary of pkg with the overlay.
func (r runner) buildTest(overlay, pkg, bin string) (string, error) {
	args := []string{"test", "-c", "-vet=off", "-overlay", overlay, "-o", bin}
	if r.race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = r.root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runTests runs the entry's tests in each of its packages with mutant
// active ("" for none) and returns how many tests ran, their output, and
// whether any failed.
func (r runner) runTests(binaries map[string]string, e entry, mutant string) (ran int, out string, failed bool) {
	var text strings.Builder
	for _, pkg := range e.packages {
		cmd := exec.Command(binaries[pkg], "-test.run", e.pattern, "-test.count", "1", "-test.v", "-test.timeout", r.timeout.String())
		cmd.Dir = filepath.Join(r.root, filepath.FromSlash(pkg))
		cmd.Env = append(os.Environ(), switchEnv+"="+mutant)
		b, err := cmd.CombinedOutput()
		text.Write(b)
		if err != nil {
			failed = true
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "--- PASS: ") || strings.HasPrefix(l, "--- FAIL: ") {
				ran++
			}
		}
	}
	return ran, text.String(), failed
}

// failures keeps the lines of go test output that say what failed.
func failures(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "--- FAIL") || strings.Contains(t, "_test.go:") || strings.HasPrefix(t, "panic:") {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("locating the module: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the module")
	}
	return filepath.Dir(mod), nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
