"""numba's compiler out of memory says so, in one line (issue 43, the other classes).

Under a low address-space limit (``ulimit -v``), numba's compiler failed with a traceback
whose last line blamed an installation ("Could not find/load shared object file
'libllvmlite.so' ... the library literally cannot be found"). Now the command ends with one
line naming the limit and what to do, exit status 1, like other failures of the machine
(output that cannot be written).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time

import pytest

from sim import compiling
from tests.hostile import TIMEOUT

resource = pytest.importorskip("resource")

MIB = 2**20


def peak_address_space(code: str, env: dict) -> int:
    """The most address space (bytes) a Python process running ``code`` took."""
    result = subprocess.run([sys.executable, "-c", code + textwrap.dedent("""
        for line in open('/proc/self/status'):
            if line.startswith('VmPeak:'):
                print(int(line.split()[1]) * 1024)
        """)], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=True)
    return int(result.stdout)


@pytest.mark.subprocess
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_a_command_under_a_low_address_space_limit_ends_with_one_line(tmp_path):
    """The limit leaves room for Python, the command line and numpy (measured, plus 64 MiB),
    not for numba's compiler, which maps about 200 MiB more to load."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    limit = peak_address_space("import numpy, sim.cli", env) + 64 * MIB
    limit -= limit % MIB

    def low_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))

    result = subprocess.run([sys.executable, "-m", "sim.cli", "prob", "pool", "--dice", "2",
                             "--trials", "100"], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT, preexec_fn=low_limit)
    assert result.returncode == 1
    assert result.stderr == (
        f"zonesim: numba's compiler (llvmlite) ran out of memory under the address-space "
        f"limit of {limit // MIB} MiB (ulimit -v); raise it or remove it (ulimit -v "
        f"unlimited) and run the command again\n")
    assert result.stdout == ""


def raised(code: str, filename: str) -> BaseException:
    """The exception ``code`` raises, as if raised in the file ``filename``."""
    try:
        exec(compile(code, filename, "exec"), {"errno": errno})
    except BaseException as error:  # noqa: BLE001 - the exception is the result
        return error
    raise AssertionError("nothing raised")


LLVMLITE = "/venv/lib/python3.11/site-packages/llvmlite/binding/ffi.py"
NUMBA = "/venv/lib/python3.11/site-packages/numba/core/targetconfig.py"
LOAD_FAILED = textwrap.dedent("""
    try:
        raise OSError("/venv/llvmlite/binding/libllvmlite.so: failed to map segment from "
                      "shared object")
    except OSError:
        raise OSError("Could not find/load shared object file 'libllvmlite.so' from resource "
                      "location: 'llvmlite.binding'. This could mean that the library "
                      "literally cannot be found")
    """)


@pytest.mark.parametrize("limit, line", [
    (400 * MIB, "zonesim: numba's compiler (llvmlite) ran out of memory under the "
                "address-space limit of 400 MiB (ulimit -v); raise it or remove it "
                "(ulimit -v unlimited) and run the command again"),
    (None, None),  # no limit: a library on a noexec mount says the same; not memory
])
def test_llvmlite_that_cannot_map_its_library_under_a_limit_is_out_of_memory(
        monkeypatch, limit, line):
    monkeypatch.setattr(compiling, "_address_limit", lambda: limit)
    assert compiling.out_of_memory(raised(LOAD_FAILED, LLVMLITE)) == line


@pytest.mark.parametrize("limit, line", [
    (None, "zonesim: numba's compiler (llvmlite) ran out of memory; free some memory and run "
           "the command again"),
    (48 * 1024 * MIB, "zonesim: numba's compiler (llvmlite) ran out of memory under the "
                      "address-space limit of 48 GiB (ulimit -v); raise it or remove it "
                      "(ulimit -v unlimited) and run the command again"),
])
def test_a_memory_error_inside_numba_is_the_compiler_out_of_memory(monkeypatch, limit, line):
    """What numba 0.68 raises when a compile cannot get memory for a zlib object."""
    monkeypatch.setattr(compiling, "_address_limit", lambda: limit)
    error = raised("raise MemoryError(\"Can't allocate memory for compression object\")", NUMBA)
    assert compiling.out_of_memory(error) == line


def test_a_memory_error_elsewhere_is_out_of_memory_without_blaming_the_compiler(monkeypatch):
    monkeypatch.setattr(compiling, "_address_limit", lambda: 300 * MIB)
    error = raised("raise OSError(errno.ENOMEM, 'Cannot allocate memory')", "/src/sim/x.py")
    assert compiling.out_of_memory(error) == (
        "zonesim: out of memory under the address-space limit of 300 MiB (ulimit -v); raise "
        "it or remove it (ulimit -v unlimited) and run the command again")


@pytest.mark.parametrize("code", ["raise ValueError('no memory words here')",
                                  "raise OSError(errno.ENOENT, 'No such file')",
                                  "raise ImportError('No module named llvmlite')"])
def test_other_failures_are_not_memory(code):
    assert compiling.out_of_memory(raised(code, LLVMLITE)) is None


CHILD = """
import sys, time
from sim import compiling
compiling.serve()
print("zonesim: compiling kernel fake_kernel, in a second process", file=sys.stderr, flush=True)
print("LLVM ERROR: out of memory", file=sys.stderr, flush=True)
time.sleep(3600)
"""


@pytest.mark.subprocess
def test_the_second_process_passes_on_only_its_own_lines(tmp_path, monkeypatch, capfd):
    """A second process compiling ahead that LLVM stops for want of memory: its "LLVM ERROR"
    is not this command's (which compiles the kernel itself), only its notices are said."""
    (tmp_path / "oom_ahead.py").write_text(textwrap.dedent(CHILD))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    child = compiling.Child("oom_ahead", ())
    seen = ""
    stop = time.monotonic() + TIMEOUT
    while "fake_kernel" not in seen and time.monotonic() < stop:
        time.sleep(0.1)
        seen += capfd.readouterr().err
    time.sleep(0.5)
    child.stop()
    seen += capfd.readouterr().err
    assert seen == "zonesim: compiling kernel fake_kernel, in a second process\n"
