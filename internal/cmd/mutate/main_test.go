package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const sample = `package p

func f(a, b bool, n int) int {
	if a && b { // mutation: both
		return 1
	}
	// mutation: loop
	for n > 0 {
		n--
	}
	switch {
	case n == 3: // mutation: three
		return 3
	}
	return 0
}
`

func TestSitesAreFoundOnTheirLineOrTheNext(t *testing.T) {
	sites, err := sitesIn("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"both": "a && b", "loop": "n > 0", "three": "n == 3"}
	if len(sites) != len(want) {
		t.Fatalf("sites %+v", sites)
	}
	for marker, cond := range want {
		s, ok := sites[marker]
		if !ok || sample[s.start:s.end] != cond || s.pkg != "p" {
			t.Errorf("%s: %+v (%q), want the condition %q", marker, s, sample[s.start:s.end], cond)
		}
	}
}

func TestInstrumentedSourceCompilesAndNamesEveryMarker(t *testing.T) {
	sites, err := sitesIn("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var all []site
	for _, s := range sites {
		all = append(all, s)
	}
	out := string(instrument([]byte(sample), all, map[string]string{"both": "never", "loop": "negate", "three": "always"}))
	for _, want := range []string{
		`if ((a && b) && !mutationActive("both")) {`,
		`for ((n > 0) != mutationActive("loop")) {`,
		`case ((n == 3) || mutationActive("three")):`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instrumented source lacks %s:\n%s", want, out)
		}
	}
	for _, src := range []string{out, string(switchFile("p"))} {
		if _, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0); err != nil {
			t.Errorf("%v:\n%s", err, src)
		}
	}
}

func TestMarkersThatMatchNothingAreErrors(t *testing.T) {
	for _, src := range []string{
		"package p\n\nvar x = 1 // mutation: nothing-here\n",
		"package p\n\nfunc f(a, b bool) {\n\tif a { if b { // mutation: two\n\t} }\n}\n",
		"package p\n\nfunc f(a bool) {\n\tif a { // mutation: Bad_Name\n\t}\n}\n",
	} {
		if _, err := sitesIn("p.go", []byte(src)); err == nil {
			t.Errorf("accepted:\n%s", src)
		}
	}
}

func TestListEntriesAreChecked(t *testing.T) {
	good := "# comment\nwriter-drops  never  ^TestX$  ./actors ./transports/stdio\n"
	entries, err := parseList(strings.NewReader(good))
	if err != nil || len(entries) != 1 || len(entries[0].packages) != 2 {
		t.Fatalf("%+v %v", entries, err)
	}
	for _, bad := range []string{
		"writer-drops never ^TestX$\n",              // no package
		"writer-drops sometimes ^TestX$ ./actors\n", // unknown mutation
		"writer-drops never ^Test($ ./actors\n",     // bad pattern
		"writer-drops never ^TestX$ actors\n",       // not a relative path
		"a never ^X$ ./a\na always ^Y$ ./a\n",       // listed twice
		"Writer_Drops never ^TestX$ ./actors\n",     // bad marker name
	} {
		if _, err := parseList(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
