package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func render(t *testing.T, c *Chart) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, b.String())
		}
	}
	return b.String()
}

// Labels are escaped, every bar has its tooltip, a missing figure is
// n/a, and the linear axis starts at zero with round ticks.
func TestRenderGroupedBars(t *testing.T) {
	out := render(t, &Chart{
		Title: "a <b> & c", YLabel: "req/s", Categories: []string{"x", "y"},
		Series: []Series{{Name: "one", Values: []float64{1200, 800}}, {Name: "two", Values: []float64{math.NaN(), 450}}},
	})
	for _, want := range []string{"a &lt;b&gt; &amp; c", "<title>one, x: 1200</title>", "<title>two, y: 450</title>", ">n/a<", ">0<", ">500<", ">1.5k<", Palette[0], Palette[1]} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "<title>"); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
}

// A log axis spans whole powers of ten, and a floating bar runs from its
// low value to its high one.
func TestRenderLogRanges(t *testing.T) {
	out := render(t, &Chart{
		Title: "latency", Categories: []string{"x"}, LogY: true,
		Series: []Series{{Name: "one", Values: []float64{900}, Low: []float64{120}}},
	})
	for _, want := range []string{">100<", ">1k<", "<title>one, x: 120 to 900</title>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestRenderRefusesMismatchedSeries(t *testing.T) {
	var b bytes.Buffer
	if err := (&Chart{Categories: []string{"x", "y"}, Series: []Series{{Name: "one", Values: []float64{1}}}}).Render(&b); err == nil {
		t.Fatal("a series shorter than the categories was drawn")
	}
	if err := (&Chart{Title: "empty"}).Render(&b); err == nil {
		t.Fatal("an empty chart was drawn")
	}
}
