"""A matplotlib figure as data (pyrun.py registers it as an IPython formatter): what it plots,
beside its PNG, for a program that wants the numbers rather than the picture. The shape is
the one E2B's code interpreter gives as `result.chart` (line, scatter, bar, pie,
box_and_whisker, a superchart of several axes, else unknown), so E2B code reads it unchanged.
"""

import datetime

MIME = "application/vnd.box.chart+json"
# points kept per series: a chart of a million points is a picture, not data to send
MAX_POINTS = 10000


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


def _axis(ax, name):
    axis = ax.xaxis if name == "x" else ax.yaxis
    dates = _dates(axis)
    scale = "datetime" if dates else (ax.get_xscale() if name == "x" else ax.get_yscale())
    ticks = list(ax.get_xticks() if name == "x" else ax.get_yticks())
    labels = [t.get_text() for t in (ax.get_xticklabels() if name == "x" else ax.get_yticklabels())]
    if dates:
        from matplotlib.dates import num2date
        ticks = [num2date(t).isoformat() for t in ticks]
    return {
        name + "_label": (ax.get_xlabel() if name == "x" else ax.get_ylabel()) or None,
        name + "_unit": None,
        name + "_ticks": [_value(t) for t in ticks],
        name + "_tick_labels": labels,
        name + "_scale": scale,
    }


def _point(v, dates):
    if dates:
        from matplotlib.dates import num2date
        try:
            return num2date(float(v)).isoformat()
        except (TypeError, ValueError, OverflowError):
            pass
    return _value(v)


def _label(artist, i):
    label = artist.get_label() or ""
    return "series %d" % (i + 1) if label.startswith("_") or not label else label


def _points(xs, ys, xdates, ydates):
    return [[_point(x, xdates), _point(y, ydates)] for x, y in list(zip(xs, ys))[:MAX_POINTS]]


def _axes_chart(ax):
    from matplotlib.collections import PathCollection
    from matplotlib.container import BarContainer
    from matplotlib.patches import Wedge

    title = ax.get_title() or ""
    wedges = [p for p in ax.patches if isinstance(p, Wedge)]
    if wedges and len(wedges) == len(ax.patches):
        return {
            "type": "pie",
            "title": title,
            "elements": [{"label": _label(w, i), "angle": abs(w.theta2 - w.theta1), "radius": w.r} for i, w in enumerate(wedges)],
        }
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    if bars:
        vertical = getattr(bars[0], "orientation", "vertical") != "horizontal"
        names = [t.get_text() for t in (ax.get_xticklabels() if vertical else ax.get_yticklabels())]
        ticks = list(ax.get_xticks() if vertical else ax.get_yticks())
        elements = []
        for g, c in enumerate(bars):
            group = _label(c, g)
            for patch in c.patches:
                at = patch.get_x() + patch.get_width() / 2 if vertical else patch.get_y() + patch.get_height() / 2
                near = min(range(len(ticks)), key=lambda k: abs(ticks[k] - at)) if ticks else None
                label = names[near] if near is not None and near < len(names) and names[near] else _value(at)
                elements.append({"label": str(label), "group": group, "value": _value(patch.get_height() if vertical else patch.get_width())})
        return dict({"type": "bar", "title": title, "elements": elements}, **_axis(ax, "x"), **_axis(ax, "y"))
    xdates, ydates = _dates(ax.xaxis), _dates(ax.yaxis)
    scatters = [c for c in ax.collections if isinstance(c, PathCollection)]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "", " ")]
    if scatters and not lines:
        elements = []
        for i, c in enumerate(scatters):
            offsets = c.get_offsets()
            elements.append({"label": _label(c, i), "points": _points([o[0] for o in offsets], [o[1] for o in offsets], xdates, ydates)})
        return dict({"type": "scatter", "title": title, "elements": elements}, **_axis(ax, "x"), **_axis(ax, "y"))
    if lines:
        elements = [{"label": _label(ln, i), "points": _points(ln.get_xdata(orig=False), ln.get_ydata(orig=False), xdates, ydates)} for i, ln in enumerate(lines)]
        return dict({"type": "line", "title": title, "elements": elements}, **_axis(ax, "x"), **_axis(ax, "y"))
    return {"type": "unknown", "title": title, "elements": []}


def figure_chart(fig):
    """The chart a figure draws; None for a figure without axes."""
    axes = [ax for ax in fig.get_axes() if ax.get_label() != "<colorbar>"]
    if not axes:
        return None
    charts = [_axes_chart(ax) for ax in axes]
    if len(charts) == 1:
        return charts[0]
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    return {"type": "superchart", "title": title, "elements": charts}


def register(shell):
    """Adds the chart formatter to the shell's display formatters. It recognises a figure
    itself rather than being registered for the Figure type: the inline backend, when
    pyplot loads, removes every formatter's registration for Figure but its own."""
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

    display = shell.display_formatter
    display.formatters[MIME] = ChartFormatter(parent=display)
    display.active_types = list(display.active_types) + [MIME]
