package uritemplate_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/uritemplate"
)

// FuzzMatch parses a template and matches a URI against it. Neither may
// panic; a parsed template respects the size and variable bounds; a match
// returns only the template's own variables; and matching is stable: the
// URI that expanding a match's values gives matches again with the same
// values (so what a handler receives does not depend on how the client
// chose to spell the URI).
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"test://template/{id}/data", "test://template/123/data"},
		{"file:///{+path}", "file:///a/b/c.txt"},
		{"file:///{+path}.json", "file:///a.b.json"},
		{"repo://x{/owner,name}", "repo://x/go/snodo"},
		{"repo://x{/seg*}", "repo://x/a/b/c"},
		{"repo://x{/seg*}", "repo://x"},
		{"search://q{?term,limit}", "search://q?limit=5&term=hi%20there"},
		{"search://q{?term}{&page}", "search://q?term=a&page=2"},
		{"user://{name}", "user://J%C3%BCrgen"},
		{"pair://{a,b}", "pair://1,2"},
		{"user://{name}", "user://bad%zz"},
		{"user://{name}", "user://%4"},
		{"f:///{+p}", "f:///a%zz"},
		{"x://h/{id}{/seg*}{?q,n}", "x://h/a%20b/1/2?q=%C3%A9%26&n=3"},
		{"x://{a}{/b}{?c}{&d}", "x://1/2?c=3&d=4"},
		{"x://{+a}{?b}", "x://a?b=1"},
		{"x://{a}", "x://" + strings.Repeat("%41", 100)},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		tp, err := uritemplate.Parse(tmpl)
		if err != nil {
			return
		}
		if len(tmpl) > uritemplate.MaxTemplateBytes {
			t.Fatalf("parsed a %d-byte template", len(tmpl))
		}
		names := tp.Names()
		if len(names) > uritemplate.MaxVariables {
			t.Fatalf("parsed a template with %d variables", len(names))
		}
		vals, ok := tp.Match(uri)
		if !ok {
			return
		}
		for name := range vals {
			if !tp.HasVariable(name) {
				t.Fatalf("Match returned variable %q the template does not declare", name)
			}
		}
		again := tp.Expand(vals)
		vals2, ok := tp.Match(again)
		if !ok {
			t.Fatalf("%q matched %q with %v, but its expansion %q does not match", uri, tmpl, vals, again)
		}
		if !reflect.DeepEqual(vals, vals2) {
			t.Fatalf("%q matched %q with %v; its expansion %q matches with %v", uri, tmpl, vals, again, vals2)
		}
	})
}

// A reserved expansion copies valid escapes and encodes a stray '%', so a
// URI with a malformed escape is no expansion of {+p} (found by FuzzMatch:
// it used to match, and its own expansion then matched differently).
func TestReservedMatchRefusesMalformedEscapes(t *testing.T) {
	tp := uritemplate.MustParse("f:///{+p}")
	for _, uri := range []string{"f:///a%zz", "f:///a%4", "f:///%", "f:///a%g1"} {
		if v, ok := tp.Match(uri); ok {
			t.Errorf("%q matched with %v", uri, v)
		}
	}
	if v, ok := tp.Match("f:///a%41/b"); !ok || v.Get("p") != "a%41/b" {
		t.Errorf("a valid escape: %v %t", v, ok)
	}
}

// When a query's own variables are undefined, RFC 6570 expands the
// continuations after it starting with '&' (found by FuzzMatch: Match
// refused the template's own expansion).
func TestContinuationWithoutItsQueryMatches(t *testing.T) {
	tp := uritemplate.MustParse("search://q{?term}{&page}")
	uri := tp.Expand(uritemplate.Values{"page": {"2"}})
	if uri != "search://q&page=2" {
		t.Fatalf("Expand = %q", uri)
	}
	v, ok := tp.Match(uri)
	if !ok || !reflect.DeepEqual(v, uritemplate.Values{"page": {"2"}}) {
		t.Fatalf("Match(%q) = %v, %t", uri, v, ok)
	}
	// The query's own variable cannot follow '&'.
	if v, ok := tp.Match("search://q&term=a"); ok {
		t.Fatalf("matched %v", v)
	}
}
