"""Road surfaces: patches of friction (and rolling resistance) under the tyres.

A script lays down polygons, each with the friction coefficient mu of its road (it replaces
``tyres.mu`` under a wheel standing on it) and, optionally, a rolling coefficient (replacing
``aero.rolling_coefficient``); where patches overlap the later one wins, and outside every patch
the car's own values hold. The kernel gets them as rows of one float array, per polygon a header
row (vertex count, mu, rolling coefficient or -1, 0) followed by one row (x, y, 0, 0) per vertex;
each car reads its own slice of rows.
"""

from __future__ import annotations

from .jit import scalar

COLUMNS = 4
NO_ROLLING = -1.0


@scalar
def inside(ground, first, count, x, y):
    """Whether (x, y) lies inside the polygon of ``count`` vertex rows from ``first`` (even-odd crossings)."""
    hit = False
    j = first + count - 1
    for i in range(first, first + count):
        xi, yi = ground[i, 0], ground[i, 1]
        xj, yj = ground[j, 0], ground[j, 1]
        if (yi > y) != (yj > y) and x < xi + (y - yi) * (xj - xi) / (yj - yi):
            hit = not hit
        j = i
    return hit


@scalar
def under(ground, x, y, mu, rolling):
    """The friction and rolling coefficients under the point (x, y) of the world: those of the last patch
    of ``ground`` that holds it, else ``mu`` and ``rolling`` (the car's own)."""
    return under_rows(ground, 0, ground.shape[0], x, y, mu, rolling)


@scalar
def under_rows(ground, row, rows, x, y, mu, rolling):
    """:func:`under` for the patches in rows ``row`` to ``rows - 1`` of ``ground`` (a car's own, in a batch's ground:
    no view of them is made, which would count references every frame). The frames call this one (a model variant
    replaces ``surface.under_rows``)."""
    while row < rows:
        count = int(ground[row, 0])
        if count >= 3 and inside(ground, row + 1, count, x, y):
            mu = ground[row, 1]
            if ground[row, 2] >= 0.0:
                rolling = ground[row, 2]
        row += count + 1
    return mu, rolling
