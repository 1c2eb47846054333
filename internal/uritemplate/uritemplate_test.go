package uritemplate_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/uritemplate"
	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func TestMatch(t *testing.T) {
	cases := []struct {
		tmpl, uri string
		want      uritemplate.Values
	}{
		{"test://template/{id}/data", "test://template/123/data", uritemplate.Values{"id": {"123"}}},
		{"file:///{+path}", "file:///a/b/c.txt", uritemplate.Values{"path": {"a/b/c.txt"}}},
		{"file:///{+path}.json", "file:///a.b.json", uritemplate.Values{"path": {"a.b"}}},
		{"repo://x{/owner,name}", "repo://x/go/snodo", uritemplate.Values{"owner": {"go"}, "name": {"snodo"}}},
		{"repo://x{/seg*}", "repo://x/a/b/c", uritemplate.Values{"seg": {"a", "b", "c"}}},
		{"repo://x{/seg*}", "repo://x", uritemplate.Values{}},
		{"search://q{?term,limit}", "search://q?limit=5&term=hi%20there", uritemplate.Values{"term": {"hi there"}, "limit": {"5"}}},
		{"search://q{?term}{&page}", "search://q?term=a&page=2", uritemplate.Values{"term": {"a"}, "page": {"2"}}},
		{"search://q{?term}", "search://q", uritemplate.Values{}},
		{"user://{name}", "user://J%C3%BCrgen", uritemplate.Values{"name": {"Jürgen"}}},
		{"pair://{a,b}", "pair://1,2", uritemplate.Values{"a": {"1"}, "b": {"2"}}},
	}
	for _, c := range cases {
		tp, err := uritemplate.Parse(c.tmpl)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.tmpl, err)
		}
		got, ok := tp.Match(c.uri)
		if !ok {
			t.Errorf("%q does not match %q", c.uri, c.tmpl)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Match(%q, %q) = %v, want %v", c.tmpl, c.uri, got, c.want)
		}
	}
}

func TestNoMatch(t *testing.T) {
	cases := []struct{ tmpl, uri string }{
		{"test://template/{id}/data", "test://template/123/other"},
		{"test://template/{id}/data", "test://template//data"},
		{"test://template/{id}/data", "test://template/a/b/data"},
		{"test://template/{id}", "test://template/x?y"},
		{"search://q{?term}", "search://q?other=1"},
		{"search://q{?term}", "search://q?term=1&term=2"},
		{"user://{name}", "user://bad%zz"},
		{"user://{name}", "other://x"},
	}
	for _, c := range cases {
		tp := uritemplate.MustParse(c.tmpl)
		if v, ok := tp.Match(c.uri); ok {
			t.Errorf("%q matched %q with %v", c.uri, c.tmpl, v)
		}
	}
}

func TestParseErrors(t *testing.T) {
	many := "x://"
	for i := 0; i < 33; i++ {
		many += "{/v" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "}" + "x"
	}
	cases := []string{
		"", "x://{", "x://}", "x://{}", "x://{#frag}", "x://{.dot}", "x://{;p}", "x://{v:3}",
		"x://{a*}", "x://{a}{b}", "x://{/a}{/b}", "x://{?a}{?b}", "x://{a}{a}", "x://{bad-name}",
		"x:// {a}", strings.Repeat("a", 1025), many,
	}
	for _, c := range cases {
		if _, err := uritemplate.Parse(c); !errors.Is(err, uritemplate.ErrInvalid) {
			t.Errorf("Parse(%.40q) = %v, want ErrInvalid", c, err)
		}
	}
	if _, err := uritemplate.Parse(strings.Repeat("a", 1024)); err != nil {
		t.Errorf("a 1,024-byte template must parse: %v", err)
	}
}

func TestExpandRoundTrip(t *testing.T) {
	tp := uritemplate.MustParse("x://h/{id}{/seg*}{?q,n}")
	vals := uritemplate.Values{"id": {"a b"}, "seg": {"1", "2"}, "q": {"é&"}, "n": {"3"}}
	uri := tp.Expand(vals)
	if uri != "x://h/a%20b/1/2?q=%C3%A9%26&n=3" {
		t.Fatalf("Expand = %q", uri)
	}
	got, ok := tp.Match(uri)
	if !ok || !reflect.DeepEqual(got, vals) {
		t.Fatalf("Match(Expand) = %v, %v", got, ok)
	}
	if got := uritemplate.MustParse("f:///{+p}").Expand(uritemplate.Values{"p": {"a/b c"}}); got != "f:///a/b%20c" {
		t.Fatalf("reserved Expand = %q", got)
	}
	if names := tp.Names(); !reflect.DeepEqual(names, []string{"id", "seg", "q", "n"}) {
		t.Fatalf("Names = %v", names)
	}
}

// BenchmarkMatchLong shows matching stays linear: the time per byte is the
// same for a 1 KiB and a 1 MiB URI.
func BenchmarkMatchLong(b *testing.B) {
	tp := uritemplate.MustParse("file:///{+path}.json")
	for _, n := range []int{1 << 10, 1 << 20} {
		uri := "file:///" + strings.Repeat("a.", n/2) + "json"
		b.Run(byteSize(n), func(b *testing.B) {
			b.SetBytes(int64(len(uri)))
			for b.Loop() {
				if _, ok := tp.Match(uri); !ok {
					b.Fatal("no match")
				}
			}
		})
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}
