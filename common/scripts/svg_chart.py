"""Shared by the labs' figures.py scripts: small SVG charts with no dependency beyond Python, so that a
handout's figures are regenerated from the models and the measurements, never drawn by hand.

    chart = Chart(720, 360, "title")
    chart.log_axes(xs, ys, "tile side", "MiB")          # or chart.bars(...)
    chart.line(xs, ys, "model")                          # a series, drawn on the axes
    chart.points(xs2, ys2, "measured")
    open("figure.svg", "w").write(chart.svg())

For figures drawn element by element (timelines, shared-memory maps): text() places a label, lanes() and
time_ticks() draw a timeline's lanes and its time axis, and write_figure() wraps the elements in an SVG page and
writes it where the script's command line says.

A figures.py that draws one figure reads its command line with figure_command_line(); one that draws several
into a folder, with figures_options() (or bench_figures_main() when they all come from one benchmark's JSON).
Both take --redraw (redraw_request()).
"""
import argparse
import html
import json
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

    def group_bars(self, series, width, base, label):
        """Bars side by side around each x = 0, 1, … of the axes drawn (a group each), each bar width wide from
        base (pixels down the page) up to its value, with label(value) above it. series: a list of (name, colour,
        values), one value per group; each is an entry of the legend."""
        for k, (name, colour, values) in enumerate(series):
            for i, v in enumerate(values):
                left = self.fx(i) + (k - len(series) / 2) * width
                self.parts.append(f'<rect x="{left + 1:.1f}" y="{self.fy(v):.1f}" width="{width - 2:.1f}" '
                                  f'height="{base - self.fy(v):.1f}" fill="{COLOURS[colour]}"/>')
                self.parts.append(text(left + width / 2, self.fy(v) - 4, label(v), anchor="middle"))
            self.legend.append((name, colour, "square"))

    def notes(self, lines, gap=14, size=12):
        """Lines of text in the legend's column, under its entries (so after the last series), gap below them."""
        y = self.top + 16 + 22 * len(self.legend) + gap
        for k, line in enumerate(lines):
            self.parts.append(text(self.w - self.right + 16, y + 16 * k, line, size=size))

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


def lanes(names, x0, x1, y, height):
    """A timeline's lanes from y down, one of the given height per name: the name left of x0, and a rule from x0
    to x1 under the lane."""
    parts = []
    for i, name in enumerate(names):
        ly = y + i * height
        parts.append(text(x0 - 8, ly + 15, name, 10, "end", "#57606a"))
        parts.append(f'<line x1="{x0}" y1="{ly + height - 2}" x2="{x1}" y2="{ly + height - 2}" '
                     f'stroke="#d0d7de" stroke-width="1"/>')
    return parts


def time_ticks(end, unit, x0, scale, y0, y1, label_y, stroke="#57606a"):
    """A timeline's time axis: at every whole unit t from 0 to end, x0 + t · scale across, a line from y0 to y1
    and "t unit" under it at label_y."""
    parts = []
    for t in range(0, int(end) + 1):
        x = x0 + t * scale
        parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" stroke="{stroke}"/>')
        parts.append(text(x, label_y, f"{t} {unit}", 10, "middle", "#57606a"))
    return parts


def figure_path(default_path):
    """Where a figures.py that draws one figure writes it: OUT.svg when its command line gives one (`figures.py
    INPUT OUT.svg`), else default_path."""
    return pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else pathlib.Path(default_path)


def write_figure(parts, width, height, default_path, out=None):
    """Writes the SVG elements `parts` on a white page of width × height to `out` when given, else to
    sys.argv[2] when the script was given one (`figures.py INPUT OUT.svg`), else to default_path; says where."""
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
           f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(parts) + "</svg>\n")
    out = pathlib.Path(out) if out else figure_path(default_path)
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


def figure_command_line(doc, svg_name, committed_input=None):
    """Reads the command line of a figures.py that draws one figure, `figures.py INPUT [OUT.svg]` (any other: exits
    with the usage, doc). Under --redraw it is first made INPUT OUT_DIR/svg_name, INPUT being committed_input (the
    run committed in the lab's figures/) or, without one, GRADER."""
    if (redraw := redraw_request()):  # every figure of the lab from its committed inputs (figures_current.sh)
        sys.argv = [sys.argv[0], str(committed_input) if committed_input else redraw[1], str(redraw[0] / svg_name)]
    if len(sys.argv) not in (2, 3):
        sys.exit(doc)


def no_committed_run(committed):
    """Under --redraw, True (and says so) when the run a lab's figures are drawn from is not committed yet (the lab has
    not run on a GPU): there is no figure to redraw, and none is committed to compare."""
    if "--redraw" in sys.argv and not pathlib.Path(committed).exists():
        print("figures.py: no run committed in figures/ yet: no figure to draw")
        return True
    return False


def kept_from_report(report, kept, out_kept, extract):
    """What a lab's figures draw from a graded run: extract(the report's JSON) when a grader report is given (and
    written to out_kept, the file --redraw draws from), else the JSON of the kept file."""
    if report:
        data = extract(json.loads(pathlib.Path(report).read_text()))
        pathlib.Path(out_kept).write_text(json.dumps(data) + "\n")
        return data
    if kept:
        return json.loads(pathlib.Path(kept).read_text())
    sys.exit("figures.py: give a grader report (--report) or the run kept from one")


def figures_options(doc, redraw_options):
    """The option parser of a figures.py that draws several figures into a folder (--out DIR and the inputs',
    for the caller to add), described by doc. Under --redraw the command line is first made
    redraw_options(OUT_DIR, GRADER): the script's options that draw every figure of the lab from its committed
    inputs into OUT_DIR."""
    if (redraw := redraw_request()):  # every figure of the lab from its committed inputs (figures_current.sh)
        sys.argv = [sys.argv[0], *redraw_options(*redraw)]
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def bench_figures_main(doc, figures_dir, bench_name, draw):
    """The command line of a figures.py that draws all its figures from one benchmark's JSON, `figures.py --bench
    BENCH.json [--out DIR]`: draw(BENCH.json, DIR), DIR the lab's figures_dir unless given. Under --redraw, from
    the run committed there as bench_name."""
    ap = figures_options(doc, lambda out, grader: ["--bench", str(figures_dir / bench_name), "--out", str(out)])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", default=str(figures_dir))
    a = ap.parse_args()
    draw(a.bench, pathlib.Path(a.out))
