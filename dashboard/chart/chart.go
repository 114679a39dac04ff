// Package chart draws the dashboard's charts as inline SVG on the server:
// no script, no chart library, nothing from another host. A chart is a
// string of SVG whose every text and attribute value is escaped here, so
// the dashboard may hand it to html/template as HTML. Colours come from
// classes (chart-bar, chart-grid, chart-axis, chart-label, chart-empty)
// that the dashboard's style sheet fills from its light and dark
// variables; only geometry is written as presentation attributes, which
// the dashboard's Content-Security-Policy allows where it forbids inline
// style.
//
// Every coordinate lies inside the viewBox, whatever the values (zero,
// one, thousands of points, values up to math.MaxInt64): the scale is
// computed in float64 from a maximum of at least 1, so nothing divides by
// zero or overflows.
package chart

import (
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The chart's box, in SVG user units: it scales to the page's width.
const (
	Width  = 720
	Height = 240

	padLeft   = 56 // the y axis' labels
	padRight  = 8
	padTop    = 12
	padBottom = 32 // the x axis' labels

	plotW = Width - padLeft - padRight
	plotH = Height - padTop - padBottom

	fontSize = 11
	// charW is an upper estimate of a character's width at fontSize in
	// the system fonts: labels are placed so that this much fits.
	charW = 0.62 * fontSize
	// maxBarW keeps a lone bar from filling the whole width.
	maxBarW = 48
)

// Point is one bar: its label (a day) and value.
type Point struct {
	Label string
	Value int64
}

// Bars is a bar chart of one series.
type Bars struct {
	// ID prefixes the ids of the title and description (letters, digits,
	// - and _ are kept).
	ID string
	// Title names the chart for screen readers; Desc sums it up.
	Title, Desc string
	// Unit follows a value in each bar's tooltip ("4 views").
	Unit string
	// Points are the bars, left to right.
	Points []Point
	// Empty is shown when there are no points.
	Empty string
}

// SVG returns the chart as an <svg> element.
func (b Bars) SVG() string {
	id := cleanID(b.ID)
	var s strings.Builder
	s.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ` + num(Width) + " " + num(Height) +
		`" preserveAspectRatio="xMidYMid meet" role="img" aria-labelledby="` + id + `-title" aria-describedby="` + id + `-desc" font-size="` +
		num(fontSize) + `">`)
	s.WriteString(`<title id="` + id + `-title">` + esc(b.Title) + `</title><desc id="` + id + `-desc">` + esc(b.Desc) + `</desc>`)

	top, step := scale(b.max())
	for v := 0.0; v <= top*(1+1e-9); v += step {
		y := yOf(v, top)
		s.WriteString(`<line class="chart-grid" x1="` + num(padLeft) + `" y1="` + num(y) + `" x2="` + num(Width-padRight) + `" y2="` + num(y) + `"/>`)
		s.WriteString(`<text class="chart-label" x="` + num(padLeft-6) + `" y="` + num(y+4) + `" text-anchor="end">` + esc(Compact(v)) + `</text>`)
		if step <= 0 || v+step == v { // no endless loop on a step lost in v's precision
			break
		}
	}
	base := float64(padTop + plotH)
	s.WriteString(`<line class="chart-axis" x1="` + num(padLeft) + `" y1="` + num(base) + `" x2="` + num(Width-padRight) + `" y2="` + num(base) + `"/>`)

	n := len(b.Points)
	if n == 0 {
		s.WriteString(`<text class="chart-empty" x="` + num(padLeft+plotW/2) + `" y="` + num(padTop+plotH/2) + `" text-anchor="middle">` +
			esc(b.Empty) + `</text></svg>`)
		return s.String()
	}
	slot := float64(plotW) / float64(n)
	barW := slot
	if slot >= 3 {
		barW = slot * 0.8 // a gap between bars wide enough to see
	}
	barW = min(barW, maxBarW)
	for i, p := range b.Points {
		x := padLeft + float64(i)*slot + (slot-barW)/2
		y := yOf(float64(max(p.Value, 0)), top)
		tip := p.Label + ": " + strconv.FormatInt(p.Value, 10)
		if b.Unit != "" {
			tip += " " + b.Unit
		}
		s.WriteString(`<rect class="chart-bar" x="` + num(x) + `" y="` + num(y) + `" width="` + num(barW) + `" height="` + num(base-y) +
			`"><title>` + esc(tip) + `</title></rect>`)
	}
	for _, l := range placeLabels(b.Points, slot) {
		s.WriteString(`<text class="chart-label" x="` + num(l.x) + `" y="` + num(base+18) + `" text-anchor="middle">` + esc(b.Points[l.i].Label) + `</text>`)
	}
	s.WriteString(`</svg>`)
	return s.String()
}

// max returns the highest value, at least 0.
func (b Bars) max() int64 {
	var m int64
	for _, p := range b.Points {
		m = max(m, p.Value)
	}
	return m
}

// scale returns the top of the y axis and the step of its grid: about
// four steps of 1, 2, 2.5 or 5 times a power of ten, whole numbers (the
// values are counts), the top at or above m.
func scale(m int64) (top, step float64) {
	if m <= 0 {
		return 1, 1
	}
	raw := float64(m) / 4
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * pow
	for _, f := range []float64{1, 2, 2.5, 5} {
		if f*pow >= raw && f*pow == math.Trunc(f*pow) { // 2.5 only from 25 up
			step = f * pow
			break
		}
	}
	step = max(step, 1)
	return math.Ceil(float64(m)/step) * step, step
}

// yOf is the y of value v on an axis up to top.
func yOf(v, top float64) float64 {
	return padTop + plotH - min(v/top, 1)*plotH
}

// labelled returns the indexes of the points whose labels the x axis
// shows: evenly spaced, the first and the last among them, as many as
// fit without overlapping.
func labelled(ps []Point) []int {
	widest := 0.0
	for _, p := range ps {
		widest = max(widest, textWidth(p.Label))
	}
	fit := max(int(plotW/(widest+labelGap)), 1)
	n := len(ps)
	if n <= fit {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if fit == 1 {
		return []int{0}
	}
	out := make([]int, 0, fit)
	for k := range fit {
		out = append(out, int(math.Round(float64(k)*float64(n-1)/float64(fit-1))))
	}
	return out
}

// label is an x axis label: point i's, centred on x.
type label struct {
	i int
	x float64
}

// placeLabels centres the labels of labelled's points under their bars,
// within the box, and leaves out a middle one that would come closer to
// its neighbour than labelGap (the box's edges can push the last one
// towards the one before).
func placeLabels(ps []Point, slot float64) []label {
	idx := labelled(ps)
	all := make([]label, len(idx))
	for k, i := range idx {
		w := textWidth(ps[i].Label)
		all[k] = label{i, max(w/2, min(padLeft+(float64(i)+0.5)*slot, Width-w/2))}
	}
	apart := func(a, b label) bool {
		return b.x-a.x >= (textWidth(ps[a.i].Label)+textWidth(ps[b.i].Label))/2+labelGap
	}
	out := []label{all[0]}
	for k, l := range all[1:] {
		last := k+1 == len(all)-1
		if last {
			for len(out) > 1 && !apart(out[len(out)-1], l) {
				out = out[:len(out)-1]
			}
			out = append(out, l)
		} else if apart(out[len(out)-1], l) {
			out = append(out, l)
		}
	}
	return out
}

// labelGap is the least room between two x axis labels.
const labelGap = 12

// textWidth estimates the width of a label.
func textWidth(s string) float64 { return float64(utf8.RuneCountInString(s)) * charW }

// Compact writes a count for an axis: 950, 1.5k, 2M, 9.2E.
func Compact(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return strconv.FormatFloat(math.Round(v/u.div*10)/10, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
}

// num writes a coordinate to two decimals, without trailing zeros.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// esc escapes text for an SVG element's content or a quoted attribute.
func esc(s string) string { return html.EscapeString(strings.ToValidUTF8(s, "\uFFFD")) }

// cleanID keeps the characters of an id that need no escaping.
func cleanID(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, s)
	if s == "" {
		return "chart"
	}
	return s
}
