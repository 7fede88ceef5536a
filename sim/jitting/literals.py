"""One compiled version of a helper for every constant it is called with.

When compiled code calls a jitted function with a constant argument
(``take_damage(dice, recs, 0, ...)``, ``gain(..., -1)``), numba types that
argument as a literal (``Literal[int](0)``) and compiles the callee again for
it: a version per constant, each with its own callees. The campaign game body
compiled ``take_damage``, ``absorb``, ``test_bonus``, ``restore`` and the
fight's ``_restore`` and ``_test_dice`` two to four times each, about a tenth of
its compile time. The kernels never use a literal's value at compile time
(no ``numba.literally``), so one version taking ``int64`` does the same work.

:func:`plain_calls` makes a dispatcher resolve calls from compiled code with
the arguments' plain types (``types.unliteral``); the caller casts the
constant, as for any ``int64`` parameter. Calls from Python are untouched (numba
never types those as literals).
"""

from __future__ import annotations

from numba.core import types


def plain_calls(dispatcher):
    """Make calls to ``dispatcher`` from compiled code use one version for all constants."""
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        return resolve(tuple(types.unliteral(a) for a in args),
                       {name: types.unliteral(a) for name, a in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher
