"""``harness.report.colours``: the import path docs/report.md named for the strategies'
colours before report/ had sub-rooms, kept for notebooks and plugins that use it:
:mod:`harness.report.charts.colours`, the same module object under both names."""

import sys

from harness.report.charts import colours as _module

sys.modules[__name__] = _module
