"""The reference curves over the plots are drawn once and moved with the frame on show, not drawn again
every frame; their extent per window is the data's."""

import numpy as np

from workbench.gui.decimate import BlockRange
from workbench.gui.testing import hold


def test_block_range_is_the_min_and_max_of_any_stretch():
    rng = np.random.default_rng(3)
    y = rng.normal(size=5000)
    index = BlockRange(y, block=64)
    for a, b in [(0, 5000), (0, 1), (63, 64), (64, 128), (10, 70), (100, 4321), (4999, 5000), (200, 200), (-5, 9999)]:
        part = y[max(a, 0):min(b, 5000)]
        expect = (float(part.min()), float(part.max())) if len(part) else (np.inf, -np.inf)
        assert index.range(a, b) == expect


def test_driving_with_two_references_pinned_moves_their_curves_without_setting_their_data(carbench_window,
                                                                                         monkeypatch):
    window = carbench_window
    for _ in range(2):
        hold(window, {"throttle", "left"}, 240)
        window.comparer.pin_current()
    hold(window, {"throttle"}, 10)
    overlay = window.plot_overlay
    curves = [c for row in window.plots.rows for c in overlay.row_overlay(row).curves.values()]
    assert len(curves) == 2 * sum(len(row.curves) for row in window.plots.rows)
    calls = []
    for curve in curves:
        original = curve.setData
        monkeypatch.setattr(curve, "setData", lambda *a, c=curve, f=original, **k: (calls.append(c), f(*a, **k)))
    before = [curve.pos().x() for curve in curves]
    model = window.model
    model.press("throttle")
    for _ in range(90):  # 90 frames driven and drawn, one at a time, as the window's timer does
        model.advance(1)
    model.release("throttle")
    assert calls == []  # not one reference curve had its data set again
    assert all(c.pos().x() < b for c, b in zip(curves, before, strict=True))  # they moved with the time axis
    # and they still show the reference's values where the axis shows them
    session = model.session
    ref = window.comparer.references.items[0]
    row = window.plots.rows[0]
    curve = overlay.row_overlay(row).curves[(0, "speed_kmh")]
    xs, ys = curve.getData()
    xs = xs + curve.pos().x()
    k = 200
    at = k * session.dt - window.plots.origin
    assert abs(ys[np.argmin(np.abs(xs - at))] - ref.run.data["speed_kmh"][k]) < 1.0


def test_the_plot_axes_take_in_the_references_over_the_window(carbench_window):
    window = carbench_window
    hold(window, {"throttle"}, 600)
    window.comparer.pin_current()
    window.model.reset()
    hold(window, {"throttle"}, 120)  # slower than the reference over most of the window
    row = window.plots.rows[0]
    axis = row.axis_of("speed_kmh")
    lo, hi = axis.vb.viewRange()[1]
    ref = window.comparer.references.items[0]
    a, b = window.plots.view
    t = ref.run.data["t"]
    shown = ref.run.data["speed_kmh"][(t >= a) & (t <= b)]
    assert lo <= shown.min() and shown.max() <= hi


def test_the_reference_curves_are_drawn_once_into_an_image_and_then_only_placed(carbench_window, qapp):
    """Aligned by time, the references only move: each y-axis' layer draws its curves into an image once and
    places it every frame, while the run on show is drawn every frame; the image looks as the paths do."""
    window = carbench_window
    for _ in range(2):
        hold(window, {"throttle", "left"}, 240)
        window.comparer.pin_current()
    hold(window, {"throttle"}, 10)
    qapp.processEvents()
    overlay = window.plot_overlay
    row = next(r for r in window.plots.rows if len(r.axes) > 1)  # a plot with two units: a layer per y-axis
    row_overlay = overlay.row_overlay(row)
    layers = list(row_overlay.layers.values())
    assert len(layers) == len(row.axes)
    assert len(row_overlay.curves) == 2 * len(row.curves)  # a curve per reference and channel
    for (_, name), curve in row_overlay.curves.items():  # each on the layer of its channel's y-axis
        assert curve.layer is row_overlay.layers[id(row.axis_of(name).vb)]
    assert all(layer.keep_image for layer in layers)
    before = [layer.images_drawn for layer in layers]
    model = window.model
    model.press("throttle")
    frames = 60
    for _ in range(frames):
        model.advance(1)
        qapp.processEvents()
    model.release("throttle")
    drawn_again = [layer.images_drawn - b for layer, b in zip(layers, before, strict=True)]
    assert max(drawn_again) <= 2, drawn_again  # a new y-range or a new stretch draws it again, not a frame
    # what the image shows is what the paths show, within the half pixel the image is placed by
    kept = row.plot.grab().toImage()
    for layer in layers:
        layer.keep_image = False
        layer.update()
    drawn = row.plot.grab().toImage()
    assert kept.size() == drawn.size()
    assert _stray_pixels(kept, drawn) == [] and _stray_pixels(drawn, kept) == []
    row_overlay.delta.setChecked(True)  # B - A: new data every frame, nothing to keep
    assert not any(layer.keep_image for layer in row_overlay.layers.values())


def _stray_pixels(a, b, tolerance: int = 80) -> list[tuple[int, int]]:
    """Pixels of image ``a`` with no pixel of ``b`` within one pixel of them of about the same colour: a curve
    drawn in one and not the other, or left behind; antialiasing half a pixel off is not one."""
    def rgb(image, x, y):
        c = image.pixelColor(x, y)
        return c.red(), c.green(), c.blue()

    stray = []
    for y in range(1, a.height() - 1):
        for x in range(1, a.width() - 1):
            mine = rgb(a, x, y)
            if rgb(b, x, y) == mine:
                continue
            near = (rgb(b, x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
            if all(max(abs(p - q) for p, q in zip(mine, other, strict=True)) > tolerance for other in near):
                stray.append((x, y))
    return stray


def test_a_channel_moved_to_another_axis_leaves_no_curve_behind(carbench_window):
    window = carbench_window
    hold(window, {"throttle", "left"}, 240)
    window.comparer.pin_current()
    hold(window, {"throttle"}, 10)
    overlay = window.plot_overlay
    row = next(r for r in window.plots.rows if len(r.axes) > 1)
    names = list(row.curves)
    row.set_channels(names[::-1])  # the units swap axes: each reference curve goes to the other y-axis
    window.model.refresh()
    row_overlay = overlay.row_overlay(row)
    drawn = [(layer, curve) for layer in row_overlay.layers.values() for curve in layer.curves]
    assert len(drawn) == len(names)  # one per channel, none left on the axis it left
    for (_, name), curve in row_overlay.curves.items():
        assert curve.layer is row_overlay.layers[id(row.axis_of(name).vb)]
    window.comparer.references.unpin(0)
    assert not any(layer.curves for layer in row_overlay.layers.values())


def test_an_svg_export_gets_the_reference_curves_as_paths(carbench_window, tmp_path):
    window = carbench_window
    hold(window, {"throttle", "left"}, 240)
    window.comparer.pin_current()
    hold(window, {"throttle"}, 10)
    row = window.plots.rows[0]
    assert all(layer.keep_image for layer in window.plot_overlay.row_overlay(row).layers.values())
    window.plots.export(row, "svg", str(tmp_path / "plot.svg"))
    svg = (tmp_path / "plot.svg").read_text()
    assert "<image" not in svg  # not a picture of the curves
    colour = window.comparer.references.items[0].colour.name()
    assert f'stroke="{colour}"' in svg  # the reference's dashed curve, as a path
