"""Publication figures drawn from memdiag result frames (SPEC §8). Plotting never computes.

Every function takes a result frame (and optionally an ``ax`` or ``fig``), returns the
:class:`~matplotlib.figure.Figure` and never calls ``plt.show()``; :func:`save` writes it as
PDF, SVG and PNG. One colour per system across every figure of an analysis
(:func:`system_colors`); see :mod:`memdiag.plots.style` for the palette and sizes.

========================  ==============================================================
:func:`venn`              benefit / tax Venn panels per system vs the reference (flows)
:func:`venn3`             reference, memory, memory + raw-source augmentation
:func:`bubble`            accuracy vs cost or latency, area ∝ memory-store size, Pareto front
:func:`ingestion`         cumulative sequential ingestion time per system, item by item
:func:`forest`            differences vs the reference: intervals, estimates, adjusted p
:func:`matrix`            pairwise difference heatmap, one metric (and colour scale) per triangle
:func:`overview`          scores across benchmark × model settings, one panel (and scale) per setting
:func:`mutation_rates`    proposed vs effective mutation rates per cluster, with intervals
:func:`write_actions`     the distribution of ADD / UPDATE / DELETE / NONE decisions per cluster
:func:`sensitivity`       score and difference from the default across a parameter's values
:func:`store_gap`         native vs complete-store scores per memory system, with the gap to raw evidence
:func:`critical_difference` mean ranks across settings, groups not shown to differ (Demšar's CD diagram)
========================  ==============================================================
"""

from memdiag.plots.bubble import bubble
from memdiag.plots.critical import critical_difference
from memdiag.plots.forest import forest
from memdiag.plots.ingestion import ingestion
from memdiag.plots.matrix import matrix
from memdiag.plots.overview import overview
from memdiag.plots.sensitivity import sensitivity
from memdiag.plots.store_gap import store_gap
from memdiag.plots.style import (
           ONE_COLUMN,
           TWO_COLUMN,
           save,
           system_colors,
           system_styles,
)
from memdiag.plots.venn import venn, venn3
from memdiag.plots.writes import mutation_rates, write_actions

__all__ = ["ONE_COLUMN", "TWO_COLUMN", "bubble", "critical_difference", "forest", "ingestion", "matrix", "mutation_rates", "overview",
           "save", "sensitivity", "store_gap", "system_colors", "system_styles", "venn", "venn3", "write_actions"]
