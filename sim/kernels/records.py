"""Packed records declared once: an ordered list of slot names gives every index and the size.

A packed record is the head of an int64 array (an encounter's parameters, a
fight's result) whose slot ``k`` holds the value named ``k``-th in its
declaration (issue 28, section 1, "Records"). A :class:`Record` is that
declaration: the index constants and the size are generated from the order
of the names, so no index is written by hand, left unused or given twice.

Numba reads a module's integers as compile-time constants; a record is
therefore a module object, its slots its attributes (``FIGHT.R_OUTCOME``
compiles to the constant 0, as ``layout.P_HEALTH`` does), and the declaring
module also binds them as its own globals (``globals().update(RECORD.constants)``)
so that ``layout.P_HEALTH`` and ``combat.R_OUTCOME`` keep their names. The
compile step fills a record by name through :meth:`Record.pack`, the one
packing helper.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np


class Record(ModuleType):
    """One packed record: slot names in order, each bound to its index, and the size.

    Parameters
    ----------
    title : str
        What the record holds, for messages ("combat parameters").
    size : str
        Name of the size constant (``P_SIZE``): the number of slots, where the
        next record or the artefact records begin.
    slots : sequence of str
        The slot names in order: slot ``k`` is ``slots[k]``.
    """

    def __init__(self, title: str, size: str, slots: Sequence[str]) -> None:
        super().__init__(f"record {size}", f"{title}: {', '.join(slots)}")
        if len(set(slots)) != len(slots) or size in slots:
            raise ValueError(f"{title}: a slot name is declared twice in {list(slots)}")
        self.title = title
        self.size_name = size
        self.slots = tuple(slots)
        self.index = {name: k for k, name in enumerate(self.slots)}
        for name, value in self.constants.items():
            setattr(self, name, value)

    @property
    def size(self) -> int:
        """Number of slots."""
        return len(self.slots)

    @property
    def constants(self) -> dict[str, int]:
        """Every slot's index by name, and the size under its own name."""
        return {**self.index, self.size_name: self.size}

    def pack(self, base: np.ndarray | None = None, /, **values: int) -> np.ndarray:
        """An int64 array holding ``values`` in the slots they name.

        Parameters
        ----------
        base : ndarray of int64, optional
            A packed array to copy (its slots beyond this record, such as
            artefact records, are kept); without it the array has ``size``
            slots, each 0 unless named.
        **values : int
            The slots to write, by name (``P_HEALTH=spec.health``).

        Raises
        ------
        ValueError
            A name that is not a slot of this record.
        """
        unknown = sorted(set(values) - set(self.index))
        if unknown:
            raise ValueError(f"{self.title} have no slot {', '.join(unknown)} "
                             f"(slots: {', '.join(self.slots)})")
        out = np.zeros(self.size, dtype=np.int64) if base is None else base.copy()
        for name, value in values.items():
            out[self.index[name]] = value
        return out
