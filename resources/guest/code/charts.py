"""A matplotlib figure as data (pyrun.py registers it as an IPython formatter): what it plots,
beside its PNG, for a program that wants the numbers rather than the picture. The shape is
the one E2B's code interpreter gives as `result.chart`, so E2B code reads it unchanged:

  line | scatter   title, x/y_label, x/y_unit, x/y_ticks, x/y_tick_labels, x/y_scale
                   (linear, log, ..., datetime, categorical), elements [{label, points}]
  bar              title, labels, units, elements [{label, group, value}]
  box_and_whisker  title, labels, units, elements [{label, min, first_quartile, median,
                   third_quartile, max, outliers}]
  pie              title, elements [{label, angle, radius}]
  superchart       title (the figure's suptitle), elements: one chart per axes
  unknown          title, elements []

An axes is classified by what was drawn on it (its artists other than text), as E2B does;
an empty title or label is null, and a unit is what a label names in "(...)" or "[...]".
"""

import datetime
import re
from decimal import Decimal, localcontext

MIME = "application/vnd.box.chart+json"
# a pandas DataFrame as data: {column: [values]}, E2B's `result.data`
DATA_MIME = "application/vnd.box.data+json"
# points kept per series: a chart of a million points is a picture, not data to send
MAX_POINTS = 10000
UNIT = re.compile(r"\s\((.*?)\)|\[(.*?)\]")


def _round(v):
    """v to 8 significant digits (a pie's 324.00000000000006 degrees is 324)."""
    d = Decimal(str(float(v)))
    with localcontext() as ctx:
        ctx.prec = max(1, 8 - d.adjusted())
        r = float(+d)
    return int(r) if r.is_integer() and abs(r) < 2**53 else r


def _value(v):
    """A plain JSON value: numbers stay numbers, dates become ISO text."""
    if hasattr(v, "item"):  # numpy scalars
        v = v.item()
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (int, float, str)) or v is None:
        return v
    return str(v)


def _dates(axis):
    try:
        from matplotlib.dates import DateConverter, _SwitchableDateConverter
        conv = axis.get_converter() if hasattr(axis, "get_converter") else axis.converter
        return isinstance(conv, (DateConverter, _SwitchableDateConverter))
    except Exception:
        return False


def _text(s):
    return s if s else None


def _labels(ax, chart):
    """Title, axis labels and their units."""
    chart["title"] = _text(ax.get_title())
    for name, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
        chart[name + "_label"] = _text(label)
        m = UNIT.search(label or "")
        chart[name + "_unit"] = (m.group(1) or m.group(2)) if m else None
    return chart


def _swap(chart):
    """A horizontal chart: its value axis is x."""
    for a, b in (("x_label", "y_label"), ("x_unit", "y_unit")):
        chart[a], chart[b] = chart[b], chart[a]


def _axis(ax, name):
    axis = ax.xaxis if name == "x" else ax.yaxis
    dates = _dates(axis)
    ticks = list(ax.get_xticks() if name == "x" else ax.get_yticks())
    labels = [t.get_text() for t in (ax.get_xticklabels() if name == "x" else ax.get_yticklabels())]
    if dates:
        from matplotlib.dates import num2date
        ticks = [num2date(t).isoformat() for t in ticks]
        scale = "datetime"
    else:
        ticks = [_value(t) for t in ticks]
        scale = ax.get_xscale() if name == "x" else ax.get_yscale()
        # categories (strings plotted as values) sit at 0..n-1, each labelled with its name
        if scale == "linear" and ticks and all(t == i and str(i) != lab for i, (t, lab) in enumerate(zip(ticks, labels))):
            scale = "categorical"
    return {name + "_ticks": ticks, name + "_tick_labels": labels, name + "_scale": scale}


def _point(v, dates):
    if dates:
        from matplotlib.dates import num2date
        try:
            return num2date(float(v)).isoformat()
        except (TypeError, ValueError, OverflowError):
            pass
    return _value(v)


def _points(xs, ys, xdates, ydates):
    return [[_point(x, xdates), _point(y, ydates)] for x, y in list(zip(xs, ys))[:MAX_POINTS]]


def _is_grid(line):
    """A two-point horizontal or vertical line: a grid or reference line, not data."""
    xs, ys = line.get_xdata(), line.get_ydata()
    return len(xs) == 2 and len(ys) == 2 and (xs[0] == xs[1] or ys[0] == ys[1])


def _kind(ax):
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import PathPatch, Rectangle, Wedge
    from matplotlib.text import Text

    drawn = [a for a in ax._children if not isinstance(a, Text)]
    if all(isinstance(a, Line2D) for a in drawn):
        return "line"
    if all(isinstance(a, (PathPatch, Line2D)) for a in drawn):
        return "box_and_whisker"
    drawn = [a for a in drawn if not (isinstance(a, Line2D) and _is_grid(a))]
    for kind, cls in (("scatter", PathCollection), ("pie", Wedge), ("bar", Rectangle)):
        if all(isinstance(a, cls) for a in drawn):
            return kind
    return "unknown"


def _series_label(label, prefix, name):
    """matplotlib's "_child3" / "_container2" (no label given) as "Line 3" / "Group 2"."""
    if label.startswith(prefix) and label[len(prefix):].isdigit():
        return "%s %s" % (name, label[len(prefix):])
    return label


def _planar(ax, kind):
    chart = _labels(ax, {"type": kind})
    chart.update(_axis(ax, "x"))
    chart.update(_axis(ax, "y"))
    xdates, ydates = _dates(ax.xaxis), _dates(ax.yaxis)
    if kind == "line":
        chart["elements"] = [
            {"label": _series_label(ln.get_label(), "_child", "Line"), "points": _points(ln.get_xdata(orig=False), ln.get_ydata(orig=False), xdates, ydates)}
            for ln in ax.get_lines()
            if not _is_grid(ln)
        ]
    else:
        chart["elements"] = [
            {"label": c.get_label(), "points": _points([o[0] for o in c.get_offsets()], [o[1] for o in c.get_offsets()], xdates, ydates)}
            for c in ax.collections
        ]
    return chart


def _bar(ax):
    from matplotlib.container import BarContainer

    chart = _labels(ax, {"type": "bar", "elements": []})
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    horizontal = bool(containers) and getattr(containers[0], "orientation", "vertical") == "horizontal"
    if horizontal:
        _swap(chart)
    names = [t.get_text() for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels())]
    ticks = list(ax.get_yticks() if horizontal else ax.get_xticks())
    for c in containers:
        group = _series_label(c.get_label(), "_container", "Group")
        for patch in c.patches:
            at = patch.get_y() + patch.get_height() / 2 if horizontal else patch.get_x() + patch.get_width() / 2
            near = min(range(len(ticks)), key=lambda k: abs(ticks[k] - at)) if ticks else None
            label = names[near] if near is not None and near < len(names) and names[near] else _value(at)
            chart["elements"].append({"label": str(label), "group": group, "value": _value(patch.get_width() if horizontal else patch.get_height())})
    return chart


def _box_and_whisker(ax):
    """Each box's statistics from what boxplot drew: the box (quartiles), the median line
    across it, the whiskers from its edges (min, max), the fliers beyond them (outliers)."""
    from matplotlib.patches import PathPatch

    chart = _labels(ax, {"type": "box_and_whisker", "elements": []})
    patches = [p for p in ax.patches if isinstance(p, PathPatch)]
    lines = list(ax.get_lines())
    spans = []
    for p in patches:
        v = p.get_path().vertices
        spans.append(((min(v[:, 0]), max(v[:, 0])), (min(v[:, 1]), max(v[:, 1]))))
    # vertical boxes all have one width; horizontal ones one height
    vertical = len({round(x1 - x0, 9) for (x0, x1), _ in spans}) <= 1 if spans else True
    if not vertical:
        _swap(chart)
        spans = [(ys, xs) for xs, ys in spans]
    names = [t.get_text() for t in (ax.get_xticklabels() if vertical else ax.get_yticklabels())]
    ticks = list(ax.get_xticks() if vertical else ax.get_yticks())
    for (x0, x1), (q1, q3) in spans:
        box = {"label": None, "min": _round(q1), "first_quartile": _round(q1), "median": None, "third_quartile": _round(q3), "max": _round(q3), "outliers": []}
        centre = (x0 + x1) / 2
        near = min(range(len(ticks)), key=lambda k: abs(ticks[k] - centre)) if ticks else None
        box["label"] = names[near] if near is not None and near < len(names) else str(_value(centre))
        for ln in lines:
            pos, val = (ln.get_xdata(), ln.get_ydata()) if vertical else (ln.get_ydata(), ln.get_xdata())
            if len(pos) == 0 or not all(x0 - 1e-9 <= float(p) <= x1 + 1e-9 for p in pos):
                continue
            val = [float(v) for v in val]
            if ln.get_linestyle() in ("None", "", " "):  # fliers: markers only
                box["outliers"].extend(_round(v) for v in val)
            elif len(val) == 2 and val[0] == val[1] and q1 <= val[0] <= q3 and box["median"] is None:
                box["median"] = _round(val[0])
            elif len(val) == 2 and len(pos) == 2 and pos[0] == pos[1]:  # a whisker
                lo, hi = min(val), max(val)
                if hi == q1:
                    box["min"] = _round(lo)
                elif lo == q3:
                    box["max"] = _round(hi)
        chart["elements"].append(box)
    return chart


def _pie(ax):
    from matplotlib.patches import Wedge

    return {
        "type": "pie",
        "title": _text(ax.get_title()),
        "elements": [{"label": w.get_label(), "angle": abs(_round(w.theta2 - w.theta1)), "radius": _value(w.r)} for w in ax.patches if isinstance(w, Wedge)],
    }


def _axes_chart(ax):
    kind = _kind(ax)
    if kind in ("line", "scatter"):
        return _planar(ax, kind)
    if kind == "bar":
        return _bar(ax)
    if kind == "box_and_whisker":
        return _box_and_whisker(ax)
    if kind == "pie":
        return _pie(ax)
    return {"type": "unknown", "title": _text(ax.get_title()), "elements": []}


def figure_chart(fig):
    """The chart a figure draws; None for a figure with nothing plotted."""
    axes = [ax for ax in fig.get_axes() if ax.get_label() != "<colorbar>"]
    if not axes or not any(ax.has_data() for ax in axes):
        return None
    if len(axes) == 1:
        return _axes_chart(axes[0])
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    return {"type": "superchart", "title": _text(title), "elements": [_axes_chart(ax) for ax in axes]}


def frame_data(frame):
    """A DataFrame's columns as lists of plain JSON values (dates as ISO text, NaN as null)."""
    return {str(k): [_value(v) for v in col] for k, col in frame.to_dict(orient="list").items()}


def register(shell):
    """Adds the chart and data formatters to the shell's display formatters. They recognise
    a figure or a DataFrame themselves rather than being registered for its type (the inline
    backend, when pyplot loads, removes every formatter's registration for Figure but its
    own), and cost nothing while matplotlib or pandas is not imported."""
    import sys

    from IPython.core.formatters import BaseFormatter
    from traitlets import Unicode

    class ChartFormatter(BaseFormatter):
        format_type = Unicode(MIME)
        _return_type = dict

        def __call__(self, obj):
            figure = sys.modules.get("matplotlib.figure")
            if not self.enabled or figure is None or not isinstance(obj, figure.Figure):
                return None
            try:
                return figure_chart(obj)
            except Exception:  # a figure we cannot read as data still shows as its picture
                return None

    class DataFormatter(BaseFormatter):
        format_type = Unicode(DATA_MIME)
        _return_type = dict

        def __call__(self, obj):
            pandas = sys.modules.get("pandas")
            if not self.enabled or pandas is None or not isinstance(obj, pandas.DataFrame):
                return None
            try:
                return frame_data(obj)
            except Exception:
                return None

    display = shell.display_formatter
    display.formatters[MIME] = ChartFormatter(parent=display)
    display.formatters[DATA_MIME] = DataFormatter(parent=display)
    display.active_types = list(display.active_types) + [MIME, DATA_MIME]
