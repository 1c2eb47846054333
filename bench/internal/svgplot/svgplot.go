// Package svgplot draws grouped bar charts as standalone SVG documents:
// one group of bars per category, one bar per series, a linear or
// logarithmic value axis, a legend, and a tooltip (<title>) on each bar
// with its value. A bar may float between a low and a high value (a
// latency range from p50 to p99). It is all the benchmark report needs,
// in about two hundred lines of standard library.
package svgplot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Series is one bar per category, in the chart's category order.
type Series struct {
	// Name is the series' legend label.
	Name string
	// Values holds the bar heights (the top of a floating bar); NaN marks
	// a category with no figure, drawn as "n/a".
	Values []float64
	// Low, when set, holds each floating bar's bottom (same length as
	// Values).
	Low []float64
}

// Chart is a grouped bar chart.
type Chart struct {
	// Title is drawn above the plot.
	Title string
	// YLabel names the value axis and its unit.
	YLabel string
	// Categories label the groups along the horizontal axis.
	Categories []string
	// Series are the bars of each group, drawn and listed in this order.
	Series []Series
	// LogY draws the value axis in powers of ten.
	LogY bool
	// Note is a line of small text under the plot (what the figures are,
	// which run they come from); "" for none.
	Note string
}

// Palette are the series' colors, in order (distinguishable with the
// common color-vision deficiencies).
var Palette = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"}

// Layout, in SVG user units.
const (
	width        = 760.0
	height       = 420.0
	marginLeft   = 78.0
	marginRight  = 16.0
	marginTop    = 44.0
	marginBottom = 92.0
	plotW        = width - marginLeft - marginRight
	plotH        = height - marginTop - marginBottom
)

// Render writes c as an SVG document.
func (c *Chart) Render(w io.Writer) error {
	if len(c.Categories) == 0 || len(c.Series) == 0 {
		return fmt.Errorf("svgplot: %q has no categories or no series", c.Title)
	}
	for _, s := range c.Series {
		if len(s.Values) != len(c.Categories) || s.Low != nil && len(s.Low) != len(s.Values) {
			return fmt.Errorf("svgplot: series %q has %d values for %d categories", s.Name, len(s.Values), len(c.Categories))
		}
	}
	lo, hi := c.bounds()
	scale := c.scale(lo, hi)
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%g" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", marginLeft, esc(c.Title))

	// Value axis: grid lines and tick labels.
	for _, t := range c.ticks(lo, hi) {
		y := scale(t)
		p(`<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#dddddd"/>`+"\n", marginLeft, y, marginLeft+plotW, y)
		p(`<text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", marginLeft-6, y, esc(tickLabel(t)))
	}
	p(`<text transform="translate(16 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", marginTop+plotH/2, esc(c.YLabel))
	p(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333333"/>`+"\n", marginLeft, marginTop+plotH, marginLeft+plotW, marginTop+plotH)

	// Bars.
	group := plotW / float64(len(c.Categories))
	bar := group * 0.8 / float64(len(c.Series))
	for i, cat := range c.Categories {
		x0 := marginLeft + float64(i)*group + group*0.1
		for j, s := range c.Series {
			x := x0 + float64(j)*bar
			v := s.Values[i]
			if math.IsNaN(v) || c.LogY && v <= 0 {
				p(`<text x="%.1f" y="%g" font-size="9" text-anchor="middle" fill="#777777">n/a</text>`+"\n", x+bar/2, marginTop+plotH-4)
				continue
			}
			base := scale(lo)
			tip := fmt.Sprintf("%s, %s: %s", s.Name, cat, valueLabel(v))
			if s.Low != nil && !math.IsNaN(s.Low[i]) {
				base = scale(s.Low[i])
				tip = fmt.Sprintf("%s, %s: %s to %s", s.Name, cat, valueLabel(s.Low[i]), valueLabel(v))
			}
			top := scale(v)
			p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
				x, top, math.Max(bar-2, 1), math.Max(base-top, 1), Palette[j%len(Palette)], esc(tip))
		}
		p(`<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", marginLeft+float64(i)*group+group/2, marginTop+plotH+18, esc(cat))
	}

	// Legend, under the category labels.
	lx := marginLeft
	for j, s := range c.Series {
		p(`<rect x="%.1f" y="%g" width="12" height="12" fill="%s"/>`+"\n", lx, marginTop+plotH+34, Palette[j%len(Palette)])
		p(`<text x="%.1f" y="%g">%s</text>`+"\n", lx+16, marginTop+plotH+44, esc(s.Name))
		lx += 30 + 7*float64(len(s.Name))
	}
	if c.Note != "" {
		p(`<text x="%g" y="%g" font-size="10" fill="#555555">%s</text>`+"\n", marginLeft, height-12, esc(c.Note))
	}
	p("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// bounds returns the value axis' range: from zero (linear) or the power
// of ten below the smallest figure (log) to a little above the largest.
func (c *Chart) bounds() (lo, hi float64) {
	minV, maxV := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i, v := range s.Values {
			if math.IsNaN(v) || c.LogY && v <= 0 {
				continue
			}
			maxV = math.Max(maxV, v)
			minV = math.Min(minV, v)
			if s.Low != nil && !math.IsNaN(s.Low[i]) && s.Low[i] > 0 {
				minV = math.Min(minV, s.Low[i])
			}
		}
	}
	if math.IsInf(maxV, -1) {
		minV, maxV = 1, 10 // no figure at all: an empty axis
	}
	if c.LogY {
		return math.Pow(10, math.Floor(math.Log10(minV))), math.Pow(10, math.Ceil(math.Log10(maxV)))
	}
	step := niceStep(maxV / 5)
	return 0, math.Max(step, math.Ceil(maxV/step)*step)
}

// scale maps a value to its y coordinate.
func (c *Chart) scale(lo, hi float64) func(float64) float64 {
	if c.LogY {
		l, h := math.Log10(lo), math.Log10(hi)
		return func(v float64) float64 { return marginTop + plotH - (math.Log10(v)-l)/(h-l)*plotH }
	}
	return func(v float64) float64 { return marginTop + plotH - (v-lo)/(hi-lo)*plotH }
}

// ticks are the values the axis labels.
func (c *Chart) ticks(lo, hi float64) []float64 {
	var out []float64
	if c.LogY {
		for v := lo; v <= hi*1.0001; v *= 10 {
			out = append(out, v)
		}
		return out
	}
	step := niceStep(hi / 5)
	for v := lo; v <= hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel writes an axis value compactly: 20000 as "20k", 1500000 as
// "1.5M".
func tickLabel(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// valueLabel writes a figure for a tooltip.
func valueLabel(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
