"""The logic of every operator kind, one module per family.

Each kind has an `OperatorCode` (`CODE`, by kind): the lines it adds to a fused chain
(`runtime.chains` generates one function per JobVertex and pastes these in, with the
expressions inlined), and the runtime object it needs per subtask (a source's records,
a sink's writer, a window's state), built when the subtask opens.

    sources    sequence, generator, collection, text / CSV / JSON lines / Parquet files
    transforms map, filter, flat_map, process, and the pass-through kinds of PyFlink
    keyed      reduce, sum, min, max, count, aggregate, keyed_process
    windows    window.* and window_all.*: time, session and count windows
    connect    co_map, co_flat_map, co_process, keyed_co_process, broadcast_process
    sinks      print, collect, text / CSV / JSON lines files, FileSink writer / committer
"""

from __future__ import annotations

from collections.abc import Mapping

from runtime.operators import connect, keyed, sinks, sources, transforms, windows
from runtime.operators.base import Gen, OperatorCode, OperatorError

CODE: Mapping[str, OperatorCode] = {
    **sources.CODE,
    **transforms.CODE,
    **keyed.CODE,
    **windows.CODE,
    **connect.CODE,
    **sinks.CODE,
}

__all__ = ["CODE", "Gen", "OperatorCode", "OperatorError"]
