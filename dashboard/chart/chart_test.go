package chart

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// element is an SVG element of a chart, with its attributes and text.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parse reads a chart's SVG as XML (it must be well formed) into its
// elements, in order.
func parse(t *testing.T, svg string) []element {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var out []element
	var stack []int
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v\n%s", err, svg)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := element{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			stack = append(stack, len(out)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += string(tk)
			}
		}
	}
	return out
}

func of(els []element, name string) []element {
	var out []element
	for _, e := range els {
		if e.name == name {
			out = append(out, e)
		}
	}
	return out
}

// f reads a numeric attribute, failing on a missing or non-finite one.
func f(t *testing.T, e element, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		t.Fatalf("<%s %s=%q>: not a finite number", e.name, name, e.attrs[name])
	}
	return v
}

// inside fails unless every shape and label of the chart lies in its
// viewBox, labels by their estimated width.
func inside(t *testing.T, els []element) {
	t.Helper()
	in := func(what string, x, y float64) {
		if x < 0 || x > Width || y < 0 || y > Height {
			t.Errorf("%s at (%v, %v): outside the viewBox 0 0 %d %d", what, x, y, Width, Height)
		}
	}
	for _, e := range els {
		switch e.name {
		case "rect":
			x, y, w, h := f(t, e, "x"), f(t, e, "y"), f(t, e, "width"), f(t, e, "height")
			if w < 0 || h < 0 {
				t.Errorf("rect of negative size %v×%v", w, h)
			}
			in("a bar's corner", x, y)
			in("a bar's far corner", x+w, y+h)
		case "line":
			in("a line's start", f(t, e, "x1"), f(t, e, "y1"))
			in("a line's end", f(t, e, "x2"), f(t, e, "y2"))
		case "text":
			x, y, w := f(t, e, "x"), f(t, e, "y"), textWidth(e.text)
			switch e.attrs["text-anchor"] {
			case "middle":
				in("a label's left end", x-w/2, y-fontSize)
				in("a label's right end", x+w/2, y)
			case "end":
				in("a label's left end", x-w, y-fontSize)
				in("a label's right end", x, y)
			default:
				t.Errorf("label %q without a known text-anchor", e.text)
			}
		}
	}
}

func days(n int, value func(i int) int64) []Point {
	ps := make([]Point, n)
	for i := range ps {
		ps[i] = Point{Label: fmt.Sprintf("2025-%02d-%02d", 1+i/28%12, 1+i%28), Value: value(i)}
	}
	return ps
}

// TestBars: a chart of zero, one, many points and huge values has one
// bar per point, tall in proportion to its value, and every shape, label
// and number finite and inside the viewBox.
func TestBars(t *testing.T) {
	for _, c := range []struct {
		name   string
		points []Point
	}{
		{"none", nil},
		{"one", []Point{{"2025-03-01", 4}}},
		{"one zero", []Point{{"2025-03-01", 0}}},
		{"three", []Point{{"2025-03-01", 4}, {"2025-03-02", 0}, {"2025-03-03", 1}}},
		{"30 days", days(30, func(i int) int64 { return int64(i * i) })},
		{"731 days", days(731, func(i int) int64 { return int64(i % 17) })},
		{"5000 points", days(5000, func(i int) int64 { return int64(i) })},
		{"huge", days(90, func(i int) int64 { return math.MaxInt64 - int64(i) })},
		{"huge and zero", []Point{{"a", math.MaxInt64}, {"b", 0}, {"c", 1}}},
		{"negative", []Point{{"a", -5}, {"b", math.MinInt64}, {"c", 3}}},
		{"all zero", days(7, func(int) int64 { return 0 })},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg := Bars{ID: "views", Title: "Views per day", Desc: "d", Unit: "views", Points: c.points, Empty: "No days"}.SVG()
			if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") || strings.Contains(svg, "e+") {
				t.Fatalf("a number is not finite or in exponent form:\n%.600s", svg)
			}
			els := parse(t, svg)
			if els[0].name != "svg" || els[0].attrs["viewBox"] != "0 0 720 240" || els[0].attrs["role"] != "img" ||
				els[0].attrs["aria-labelledby"] != "views-title" || els[0].attrs["aria-describedby"] != "views-desc" {
				t.Errorf("the svg element: %v", els[0].attrs)
			}
			if ts := of(els, "title"); len(ts) == 0 || ts[0].text != "Views per day" || ts[0].attrs["id"] != "views-title" {
				t.Errorf("no title first: %v", ts)
			}
			if ds := of(els, "desc"); len(ds) != 1 || ds[0].attrs["id"] != "views-desc" {
				t.Errorf("desc: %v", ds)
			}
			bars := of(els, "rect")
			if len(bars) != len(c.points) {
				t.Fatalf("%d bars for %d points", len(bars), len(c.points))
			}
			inside(t, els)
			base := float64(padTop + plotH)
			var top float64 // the tallest bar's height
			for i, b := range bars {
				if b.attrs["class"] != "chart-bar" {
					t.Errorf("bar %d: class %q", i, b.attrs["class"])
				}
				h := f(t, b, "height")
				if y := f(t, b, "y"); math.Abs(y+h-base) > 0.02 {
					t.Errorf("bar %d does not stand on the axis: y %v + height %v", i, y, h)
				}
				if c.points[i].Value <= 0 && h != 0 {
					t.Errorf("bar %d of %d is %v tall", i, c.points[i].Value, h)
				}
				top = max(top, h)
				if i > 0 && f(t, b, "x") < f(t, bars[i-1], "x") {
					t.Errorf("bar %d is left of bar %d", i, i-1)
				}
			}
			// Heights are in proportion to values.
			var m int64
			for _, p := range c.points {
				m = max(m, p.Value)
			}
			for i, b := range bars {
				if v := c.points[i].Value; v > 0 && top > 0 {
					want := float64(v) / float64(m) * top
					if h := f(t, b, "height"); math.Abs(h-want) > 0.02+want*1e-9 {
						t.Errorf("bar %d of %d: height %v, want %v (the tallest %v for %d)", i, v, h, want, top, m)
					}
				}
			}
			if len(c.points) == 0 && !strings.Contains(svg, ">No days</text>") {
				t.Error("an empty chart does not say so")
			}
			if len(c.points) > 0 {
				if tip := of(els, "title")[1].text; !strings.HasPrefix(tip, c.points[0].Label+": ") || !strings.HasSuffix(tip, " views") {
					t.Errorf("the first bar's tooltip %q", tip)
				}
			}
		})
	}
}

// TestBarsAxis: the y axis runs from 0 to a round top at or above the
// highest value, in whole steps; the x axis labels the first and the last
// day, and no two labels overlap.
func TestBarsAxis(t *testing.T) {
	for _, c := range []struct {
		max       int64
		top, step float64
	}{{0, 1, 1}, {1, 1, 1}, {3, 3, 1}, {9, 10, 5}, {10, 10, 5}, {37, 40, 10}, {100, 100, 25}, {1234, 1500, 500},
		{math.MaxInt64, 1e19, 2.5e18}} {
		top, step := scale(c.max)
		if top != c.top || step != c.step || top < float64(c.max) || step != math.Trunc(step) {
			t.Errorf("scale(%d) = %v, %v; want %v, %v", c.max, top, step, c.top, c.step)
		}
	}
	for _, n := range []int{1, 2, 7, 8, 9, 30, 90, 731} {
		els := parse(t, Bars{ID: "x", Points: days(n, func(int) int64 { return 1 })}.SVG())
		var xs []float64
		var labels []string
		for _, e := range of(els, "text") {
			if e.attrs["text-anchor"] == "middle" {
				xs = append(xs, f(t, e, "x"))
				labels = append(labels, e.text)
			}
		}
		ps := days(n, func(int) int64 { return 1 })
		if len(labels) == 0 || labels[0] != ps[0].Label || labels[len(labels)-1] != ps[n-1].Label {
			t.Errorf("%d days: labels %v, want the first and the last", n, labels)
		}
		for i := 1; i < len(xs); i++ {
			if xs[i]-xs[i-1] < textWidth(labels[i]) {
				t.Errorf("%d days: labels %q and %q overlap (%v, %v)", n, labels[i-1], labels[i], xs[i-1], xs[i])
			}
		}
	}
}

// TestBarsEscape: text and ids cannot break out of the SVG.
func TestBarsEscape(t *testing.T) {
	svg := Bars{ID: `a"><script>x</script>`, Title: `<script>alert(1)</script>`, Desc: `"&'`, Unit: "<b>",
		Points: []Point{{`</title><script>`, 1}, {"\xff", 2}}}.SVG()
	if strings.Contains(svg, "<script") || strings.Contains(svg, "<b>") || !strings.Contains(svg, "&lt;script&gt;alert(1)") {
		t.Errorf("unescaped text:\n%s", svg)
	}
	els := parse(t, svg)
	if id := els[0].attrs["aria-labelledby"]; id != "ascriptxscript-title" {
		t.Errorf("the id %q", id)
	}
	if !strings.Contains(svg, "\uFFFD") {
		t.Error("invalid UTF-8 is not replaced")
	}
}

func TestCompact(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 7: "7", 950: "950", 1000: "1k", 1500: "1.5k", 2.5e6: "2.5M", 1e19: "10E", 7.5e18: "7.5E"} {
		if got := Compact(v); got != want {
			t.Errorf("Compact(%v) = %q, want %q", v, got, want)
		}
	}
}
