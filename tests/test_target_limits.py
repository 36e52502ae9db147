"""What verify-target and the dialect's verifiers reject before LLVM sees it:
static shared memory past each target's limit, `scf.for` with a step of 0,
and a shared allocation whose byte size does not fit in i64."""

from __future__ import annotations

import re

import pytest

from gpuc.compiler import compile_module
from gpuc.diagnostics import OpError
from gpuc.runtime.args import CUDA_LIMITS
from gpuc.targets import make_target

LIMITS = {
    "ptx": 48 * 1024,
    "spirv": 32 * 1024,
    "native": 48 * 1024,
    "amdgpu": 64 * 1024,
}


def shared_kernel(floats: int) -> str:
    return f"""
gpuc.func @k(%v: f32) kernel {{
  %s = gpuc.shared_alloc {floats} : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return
}}
"""


def loop_kernel(step: str) -> str:
    return f"""
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %v: f32, %n: index) kernel {{
  %lb = arith.constant 0 : index
  %ub = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step {step} {{
    gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  }}
  gpuc.return
}}
"""


@pytest.mark.parametrize("target", sorted(LIMITS))
def test_static_shared_limit(target: str) -> None:
    limit = LIMITS[target]
    result = compile_module(shared_kernel(limit // 4), target, opt_level=0)
    assert result.kernels["k"].static_shared_bytes == limit
    message = (
        f"kernel @k uses {limit + 4} bytes of static shared memory, more than the "
        f"{limit} bytes the {target} target allows"
    )
    with pytest.raises(OpError, match=re.escape(message)) as error:
        compile_module(shared_kernel(limit // 4 + 1), target)
    assert ":2:1: error: 'gpuc.func' op" in str(error.value)
    assert "allocate less workgroup memory (gpuc.shared_alloc" in str(error.value)
    assert make_target(target).max_static_shared_bytes == limit


def test_limit_sources() -> None:
    """The native limit is the native executor's; ptx says why it stops at 48 KiB."""
    assert make_target("native").max_static_shared_bytes == CUDA_LIMITS.max_shared_bytes
    with pytest.raises(OpError, match="shared> kernel parameter, launched with gpuc"):
        compile_module(shared_kernel(1 << 20), "ptx")
    with pytest.raises(OpError, match="full-profile OpenCL device has at least"):
        compile_module(shared_kernel(1 << 20), "spirv")


@pytest.mark.parametrize("target", ["ptx", "native"])
def test_loop_step_zero(target: str) -> None:
    with pytest.raises(
        OpError,
        match=re.escape(
            "7:3: error: 'scf.for' op step is 0: the loop would not terminate"
        ),
    ):
        compile_module(loop_kernel("%c0"), target)
    compile_module(loop_kernel("%c1"), target, opt_level=0)
    compile_module(loop_kernel("%n"), target, opt_level=0)


def test_shared_alloc_byte_size_overflow() -> None:
    source = """
gpuc.func @k() kernel {
  %s = gpuc.shared_alloc 9223372036854775807 : !gpuc.ptr<f32, shared>
  gpuc.return
}
"""
    with pytest.raises(OpError) as error:
        compile_module(source, "native")
    message = str(error.value)
    assert (
        ":3:8: error: 'gpuc.shared_alloc' op allocates 9223372036854775807 " in message
    )
    assert "36893488147419103228 bytes" in message and "allocate fewer" in message
    with pytest.raises(OpError, match="uses 9223372036854775807 bytes of static"):
        compile_module(source.replace("f32", "i8"), "native")
