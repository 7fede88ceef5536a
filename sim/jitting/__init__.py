"""How the kernels are compiled: numba's options, its on-disk cache and compiler patches.

:mod:`sim.jitting.options` is the one place numba options are set (``jit``,
``pjit``, ``pool_kernel``) and the entry point that installs the patches and
names the cache folder. The other modules change how numba compiles, never what
a kernel computes: :mod:`.inlining`, :mod:`.ssa` and :mod:`.literals`
make compiles faster, :mod:`.cachefiles` locks and seals numba's cache files,
:mod:`.cachedirs` names the cache folders (one per kernel module, by the sources it
imports), marks them and removes stale ones, and :mod:`.views` writes views of a flat
array's parts (the campaign kernel's tables). This package imports only the standard
library, numpy and numba; every kernel module (:mod:`sim.kernels`) imports it.
"""
