"""Views of parts of a flat array, built in a few instructions with no numba function inlined.

The campaign kernel keeps a compiled scenario in one flat ``int64`` array and a
game's state in another (:mod:`sim.kernels.campaign.tables`), so that its parts
pass three arrays to each other instead of some sixty (numba passes an array as
seven or more arguments: a call passing the old tables and state cost a part
about 600 cycles). Each table is a stretch of the flat array, read through a
C-ordered view of its shape.

numba's own ``a[i:j].reshape(shape)`` makes such a view through a C helper that
checks the shape (some fifty instructions and a call), and a jitted function
returning a view is typed and inlined anew at each of the few hundred places
the kernel reads a table, which cost its compile about two seconds. The
intrinsics here write the view's data pointer, shape and strides directly, as
numba writes a basic slice, and are typed once. They check nothing: the packer
that wrote the flat array wrote the offsets and shapes they read
(``tests/kernels/campaign/test_campaign_tables.py`` checks every view against its
declaration).

The intrinsics use numba internals (``numba.np.arrayobj``, ``cgutils``): under a numba
other than the checked ones, or with the patch off (:data:`sim.jitting.options.ACTIVE`),
:func:`stretch` and :func:`accessor` return plain jitted functions that slice and reshape
with numpy's own operations instead, the same views compiled more slowly.
"""

from __future__ import annotations

from sim.jitting.options import ACTIVE, jit

PLAIN = "views" not in ACTIVE
"""Whether the views are plain jitted numpy slices (numba unchecked, or the patch off)."""


def _view(context, builder, base, array, result, at, shape):
    """A C-ordered view ``result`` of ``shape`` (LLVM values) from element ``at`` of the 1-d
    ``array`` of type ``base``, sharing its memory.
    """
    from numba.core.imputils import impl_ret_borrowed
    from numba.np.arrayobj import make_array, populate_array

    source = make_array(base)(context, builder, array)
    strides = [None] * len(shape)
    stride = source.itemsize
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = stride
        stride = builder.mul(stride, shape[d])
    out = make_array(result)(context, builder)
    populate_array(out, data=builder.gep(source.data, [at]), shape=shape, strides=strides,
                   itemsize=source.itemsize, meminfo=source.meminfo, parent=None)
    return impl_ret_borrowed(context, builder, result, out._getvalue())


def _flat(base) -> bool:
    """Whether a typed argument is a flat (1-d) array."""
    from numba import types

    return isinstance(base, types.Array) and base.ndim == 1


def stretch(first: int, size: int, rows: bool = True):
    """An intrinsic for a fixed stretch of a flat array: ``f(base, i)`` is
    ``base[first + i * size:][:size]`` (``rows``: the ``i``-th of rows of ``size``), or
    ``f(base)`` is ``base[first:first + size]``; a C-ordered 1-d view either way.
    """
    if PLAIN:
        return _plain_stretch(first, size, rows)
    from numba import types
    from numba.extending import intrinsic

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        at = intp(first)
        if rows:
            i = context.cast(builder, args[1], signature.args[1], types.intp)
            at = builder.add(at, builder.mul(i, intp(size)))
        return _view(context, builder, signature.args[0], args[0], signature.return_type, at,
                     [intp(size)])

    if rows:
        def typer(typingctx, base, i):
            if _flat(base) and isinstance(i, types.Integer):
                return types.Array(base.dtype, 1, "C")(base, i), codegen
            return None
    else:
        def typer(typingctx, base):
            if _flat(base):
                return types.Array(base.dtype, 1, "C")(base), codegen
            return None
    return intrinsic(typer)


def accessor(start: int, dims: tuple[int | tuple[int], ...], row: int | None = None):
    """An intrinsic reading where a table lies from a header: ``f(base, header)`` is the
    C-ordered view of ``base`` from element ``header[start]`` whose shape is ``header[k]``
    for each ``k`` of ``dims`` (a ``(w,)`` there: the width ``w``).

    With ``row``, ``f(base, header, p)`` is row ``p`` of such a table, the view beginning
    ``p * header[row]`` elements further on (a seat's row of a state array).
    """
    if PLAIN:
        return _plain_accessor(start, dims, row)
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import make_array

    def codegen(context, builder, signature, args):
        head = make_array(signature.args[1])(context, builder, args[1])
        intp = context.get_value_type(types.intp)

        def read(k):
            return builder.load(cgutils.gep(builder, head.data, k))

        at = read(start)
        if row is not None:
            p = context.cast(builder, args[2], signature.args[2], types.intp)
            at = builder.add(at, builder.mul(p, read(row)))
        shape = [intp(d[0]) if isinstance(d, tuple) else read(d) for d in dims]
        return _view(context, builder, signature.args[0], args[0], signature.return_type, at,
                     shape)

    def typed(base, header):
        return _flat(base) and _flat(header) and header.dtype == types.int64

    if row is None:
        def typer(typingctx, base, header):
            if typed(base, header):
                return types.Array(base.dtype, len(dims), "C")(base, header), codegen
            return None
    else:
        def typer(typingctx, base, header, p):
            if typed(base, header) and isinstance(p, types.Integer):
                return types.Array(base.dtype, len(dims), "C")(base, header, p), codegen
            return None
    return intrinsic(typer)


def _plain_stretch(first: int, size: int, rows: bool):
    """:func:`stretch` as a jitted numpy slice (no numba internals)."""
    if rows:
        def view(base, i):
            at = first + i * size
            return base[at:at + size]
    else:
        def view(base):
            return base[first:first + size]
    return jit(inline="always")(view)


def _plain_accessor(start: int, dims: tuple[int | tuple[int], ...], row: int | None):
    """:func:`accessor` as a jitted numpy slice and reshape (no numba internals)."""
    fixed = tuple(isinstance(d, tuple) for d in dims)
    slots = tuple(d[0] if isinstance(d, tuple) else d for d in dims)

    @jit(inline="always")
    def extent(header, k):
        return slots[k] if fixed[k] else header[slots[k]]

    shaped = _SHAPED[len(dims)](extent)
    if row is None:
        def view(base, header):
            return shaped(base, header[start], header)
    else:
        def view(base, header, p):
            return shaped(base, header[start] + p * header[row], header)
    return jit(inline="always")(view)


def _shaped1(extent):
    def shaped(base, at, header):
        return base[at:at + extent(header, 0)]
    return jit(inline="always")(shaped)


def _shaped2(extent):
    def shaped(base, at, header):
        n0, n1 = extent(header, 0), extent(header, 1)
        return base[at:at + n0 * n1].reshape((n0, n1))
    return jit(inline="always")(shaped)


def _shaped3(extent):
    def shaped(base, at, header):
        n0, n1, n2 = extent(header, 0), extent(header, 1), extent(header, 2)
        return base[at:at + n0 * n1 * n2].reshape((n0, n1, n2))
    return jit(inline="always")(shaped)


def _shaped4(extent):
    def shaped(base, at, header):
        n0, n1, n2, n3 = extent(header, 0), extent(header, 1), extent(header, 2), \
            extent(header, 3)
        return base[at:at + n0 * n1 * n2 * n3].reshape((n0, n1, n2, n3))
    return jit(inline="always")(shaped)


_SHAPED = {1: _shaped1, 2: _shaped2, 3: _shaped3, 4: _shaped4}
"""A plain view's slice and reshape, by its number of dimensions (the tables have at most 4)."""
