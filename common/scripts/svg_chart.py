"""Shared by the labs' figures.py scripts: small SVG charts with no dependency beyond Python, so that a
handout's figures are regenerated from the models and the measurements, never drawn by hand.

    chart = Chart(720, 360, "title")
    chart.log_axes(xs, ys, "tile side", "MiB")          # or chart.bars(...)
    chart.line(xs, ys, "model")                          # a series, drawn on the axes
    chart.points(xs2, ys2, "measured")
    open("figure.svg", "w").write(chart.svg())

For figures drawn element by element (timelines, shared-memory maps): text() places a label, and
write_figure() wraps the elements in an SVG page and writes it where the script's command line says.
"""
import html
import math
import pathlib
import sys

COLOURS = ["#1f6feb", "#d1242f", "#2da44e", "#9a6700", "#8250df"]


class Chart:
    def __init__(self, width, height, title, legend=True):
        self.w, self.h, self.title = width, height, title
        self.left, self.right, self.top, self.bottom = 80, 170 if legend else 20, 40, 56
        self.parts = []
        self.legend = []
        self.show_legend = legend

    # -- axes ---------------------------------------------------------------------------------------------
    def log_axes(self, xs, ys, x_label, y_label):
        """Log-log axes spanning the data, with ticks at powers of two (x) and of ten (y)."""
        self.x0, self.x1 = math.log2(min(xs)), math.log2(max(xs))
        self.y0, self.y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        self.fx = lambda x: self.left + (math.log2(x) - self.x0) / (self.x1 - self.x0) * self.plot_w()
        self.fy = lambda y: self.top + (1 - (math.log10(y) - self.y0) / (self.y1 - self.y0)) * self.plot_h()
        for e in range(int(self.x0), int(self.x1) + 1):
            x = 2 ** e
            self._tick_x(self.fx(x), str(x))
        for e in range(self.y0, self.y1 + 1):
            self._tick_y(self.fy(10 ** e), f"{10 ** e:g}")
        self._frame(x_label, y_label)

    def lin_axes(self, xs, ys, x_label, y_label, x_ticks=None, y_step=None, x_labels=None):
        """Linear axes from zero (y) and from min(xs) to max(xs) (x), ticks at x_ticks (default: every integer;
        labelled by x_labels[x] when given) and every y_step (default: about five ticks)."""
        self.x0, self.x1 = min(xs), max(xs)
        top = max(ys) * 1.12
        step = y_step or 10 ** math.floor(math.log10(top / 5)) * min((1, 2, 5, 10), key=lambda m: abs(top / 5 / (10 ** math.floor(math.log10(top / 5)) * m) - 1))
        pad = 0.5 if self.x1 > self.x0 else 1
        self.fx = lambda x: self.left + (x - self.x0 + pad) / (self.x1 - self.x0 + 2 * pad) * self.plot_w()
        self.fy = lambda y: self.top + (1 - y / top) * self.plot_h()
        for x in (x_ticks if x_ticks is not None else range(int(self.x0), int(self.x1) + 1)):
            self._tick_x(self.fx(x), (x_labels or {}).get(x, str(x)))
        k = 0
        while k * step <= top:
            self._tick_y(self.fy(k * step), f"{k * step:g}")
            k += 1
        self._frame(x_label, y_label)

    def bars(self, labels, values, y_label, colour=0, value_format="{:g}"):
        """A bar per label on a linear axis from zero, each bar with its value above it."""
        top = max(values) * 1.15
        n = len(labels)
        slot = self.plot_w() / n
        self.fy = lambda y: self.top + (1 - y / top) * self.plot_h()
        for i, (label, v) in enumerate(zip(labels, values)):
            x = self.left + slot * i + slot * 0.2
            y = self.fy(v)
            self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.6:.1f}" '
                              f'height="{self.top + self.plot_h() - y:.1f}" fill="{COLOURS[colour]}"/>')
            self.parts.append(self._text(x + slot * 0.3, y - 6, value_format.format(v), anchor="middle"))
            self._tick_x(x + slot * 0.3, label)
        self._frame("", y_label)

    # -- series -------------------------------------------------------------------------------------------
    def line(self, xs, ys, name, colour=0):
        pts = " ".join(f"{self.fx(x):.1f},{self.fy(y):.1f}" for x, y in zip(xs, ys))
        self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{COLOURS[colour]}" stroke-width="2"/>')
        if name is not None:  # None: no legend entry (a line through points that have one)
            self.legend.append((name, colour, "line"))

    def points(self, xs, ys, name, colour=1, square=False):
        for x, y in zip(xs, ys):
            if square:
                self.parts.append(f'<rect x="{self.fx(x) - 4.5:.1f}" y="{self.fy(y) - 4.5:.1f}" width="9" height="9" '
                                  f'fill="{COLOURS[colour]}"/>')
            else:
                self.parts.append(f'<circle cx="{self.fx(x):.1f}" cy="{self.fy(y):.1f}" r="5" fill="{COLOURS[colour]}"/>')
        self.legend.append((name, colour, "square" if square else "point"))

    def dashed(self, xs, ys, name, colour=0, dash="6,4"):
        """A series drawn as a dashed line (a model over measured points, a bound)."""
        pts = " ".join(f"{self.fx(x):.1f},{self.fy(y):.1f}" for x, y in zip(xs, ys))
        self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{COLOURS[colour]}" stroke-width="2" '
                          f'stroke-dasharray="{dash}"/>')
        self.legend.append((name, colour, "dashed:" + dash))

    # -- output -------------------------------------------------------------------------------------------
    def svg(self):
        legend = []
        for i, (name, colour, kind) in enumerate(self.legend if self.show_legend else []):
            x, y = self.w - self.right + 16, self.top + 16 + 22 * i
            if kind == "line" or kind.startswith("dashed:"):
                dash = f' stroke-dasharray="{kind[7:]}"' if kind.startswith("dashed:") else ""
                mark = f'<line x1="{x}" y1="{y}" x2="{x + 20}" y2="{y}" stroke="{COLOURS[colour]}" stroke-width="2"{dash}/>'
            elif kind == "square":
                mark = f'<rect x="{x + 5.5}" y="{y - 4.5}" width="9" height="9" fill="{COLOURS[colour]}"/>'
            else:
                mark = f'<circle cx="{x + 10}" cy="{y}" r="5" fill="{COLOURS[colour]}"/>'
            legend.append(mark + self._text(x + 28, y + 4, name))
        body = "\n".join(self.parts + legend)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
                f'viewBox="0 0 {self.w} {self.h}" font-family="sans-serif" font-size="13">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n'
                f'{self._text(self.w / 2, 22, self.title, anchor="middle", size=15)}\n{body}\n</svg>\n')

    def plot_w(self):
        return self.w - self.left - self.right

    def plot_h(self):
        return self.h - self.top - self.bottom

    def _frame(self, x_label, y_label):
        x0, y0, x1, y1 = self.left, self.top + self.plot_h(), self.left + self.plot_w(), self.top
        self.parts.append(f'<polyline points="{x0},{y1} {x0},{y0} {x1},{y0}" fill="none" stroke="#444"/>')
        if x_label:
            self.parts.append(self._text((x0 + x1) / 2, self.h - 12, x_label, anchor="middle"))
        self.parts.append(f'<text transform="translate(18,{(y0 + y1) / 2:.0f}) rotate(-90)" text-anchor="middle">'
                          f'{html.escape(y_label)}</text>')

    def _tick_x(self, x, label):
        y = self.top + self.plot_h()
        self.parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}" stroke="#444"/>')
        self.parts.append(self._text(x, y + 20, label, anchor="middle"))

    def _tick_y(self, y, label):
        self.parts.append(f'<line x1="{self.left - 5}" y1="{y:.1f}" x2="{self.left}" y2="{y:.1f}" stroke="#444"/>')
        self.parts.append(f'<line x1="{self.left}" y1="{y:.1f}" x2="{self.left + self.plot_w()}" y2="{y:.1f}" '
                          f'stroke="#ddd"/>')
        self.parts.append(self._text(self.left - 8, y + 4, label, anchor="end"))

    @staticmethod
    def _text(x, y, text, anchor="start", size=13):
        return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}">'
                f'{html.escape(str(text))}</text>')


def side_by_side(charts):
    """Several charts in one SVG, left to right."""
    width, height = sum(c.w for c in charts), max(c.h for c in charts)
    inner, x = [], 0
    for c in charts:
        body = c.svg().split("\n", 1)[1].rsplit("</svg>", 1)[0]
        inner.append(f'<g transform="translate({x},0)">{body}</g>')
        x += c.w
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">\n' + "\n".join(inner) + "\n</svg>\n")


def text(x, y, s, size=11, anchor="start", colour="#24292f"):
    """One SVG text element at (x, y)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}">{html.escape(s)}</text>')


def write_figure(parts, width, height, default_path, out=None):
    """Writes the SVG elements `parts` on a white page of width × height to `out` when given, else to
    sys.argv[2] when the script was given one (`figures.py INPUT OUT.svg`), else to default_path; says where."""
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
           f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(parts) + "</svg>\n")
    out = pathlib.Path(out) if out else pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else pathlib.Path(default_path)
    out.parent.mkdir(exist_ok=True)
    out.write_text(svg)
    print(f"wrote {out}")


def redraw_request(argv=None):
    """`figures.py --redraw OUT_DIR [--grader GRADER]`: what every lab's figures.py accepts, so that a test can
    redraw a lab's committed figures without knowing their inputs (grader/tests/figures_current.sh): every figure
    of the lab, from the inputs committed beside it in figures/ (and the models, through GRADER's `calc`), written
    into OUT_DIR under its committed name. Returns (OUT_DIR, GRADER or None), or None without --redraw."""
    argv = sys.argv[1:] if argv is None else argv
    if "--redraw" not in argv:
        return None
    i = argv.index("--redraw")
    if i + 1 >= len(argv):
        sys.exit("--redraw needs a folder")
    grader = argv[argv.index("--grader") + 1] if "--grader" in argv and argv.index("--grader") + 1 < len(argv) else None
    out = pathlib.Path(argv[i + 1])
    out.mkdir(parents=True, exist_ok=True)
    return out, grader
