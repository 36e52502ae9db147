"""AMDGPU code quality: gpuc's saxpy and block reduction next to MLIR 16's
ROCDL path for the same kernels (gpu, arith, memref, scf dialects), compiled
side by side in one run.

    python bench/amdgpu_code_quality.py [--arch gfx90a]

MLIR 16: `mlir-opt-16 --convert-scf-to-cf --convert-gpu-to-rocdl` (bare
pointers, 64-bit index) -> `mlir-translate-16 --mlir-to-llvmir` -> `opt-16 -O3`
-> `llc-16 -march=amdgcn`, linked by ld.lld like gpuc's. MLIR 16 reads
`gpu.block_dim` by calling ROCm's `__ockl_get_local_size`, which comes from the
device libraries (not on this machine); the bench links a stand-in that reads
the group size from the implicit kernel arguments, as gpuc does (without it,
the call alone costs ~40 VGPRs). Two MLIR 16 printing quirks are worked
around: the lowered module is printed generic (the pretty form of an
addrspace(1) `llvm.atomicrmw` does not parse back), and the `gpu.module`'s
body is cut out textually for mlir-translate.

For each kernel: VGPRs and SGPRs from the code object's notes, and the
instructions llvm-objdump shows inside the kernel's symbol.
Goal: registers no more than the MLIR 16 path's. A last column puts MLIR 16's
LLVM IR through LLVM 22's llc, the back-end gpuc uses: register counts move
between LLVM versions (LLVM 22 reports more SGPRs for the same IR). gpuc
contracts `a * x + y` into an fma by default (`v_fmac`, which overwrites its
addend and keeps two more VGPRs live on gfx90a); MLIR 16 does not: with
`fp_contract=False` gpuc's saxpy has MLIR's 4 VGPRs.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpuc.compiler import compile_module
from gpuc.targets.amdgpu.target import kernel_metadata
from gpuc.tools import llvm_tool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNELS = ("saxpy", "reduce")

BUFFER = "memref<1073741824xf32, 1>"  # bare pointers need a static shape
MLIR = f"""
module attributes {{gpu.container_module}} {{
gpu.module @kernels {{
  gpu.func @saxpy(%a: f32, %x: {BUFFER}, %y: {BUFFER}, %n: i32) kernel {{
    %b = gpu.block_id x
    %d = gpu.block_dim x
    %t = gpu.thread_id x
    %bd = arith.muli %b, %d : index
    %i = arith.addi %bd, %t : index
    %n_index = arith.index_cast %n : i32 to index
    %in_range = arith.cmpi ult, %i, %n_index : index
    scf.if %in_range {{
      %xi = memref.load %x[%i] : {BUFFER}
      %yi = memref.load %y[%i] : {BUFFER}
      %ax = arith.mulf %a, %xi : f32
      %r = arith.addf %ax, %yi : f32
      memref.store %r, %y[%i] : {BUFFER}
    }}
    gpu.return
  }}
  gpu.func @reduce(%x: {BUFFER}, %out: memref<1xf32, 1>, %n: i32)
      workgroup(%partial : memref<1024xf32, 3>) kernel {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %b = gpu.block_id x
    %d = gpu.block_dim x
    %t = gpu.thread_id x
    %bd = arith.muli %b, %d : index
    %i = arith.addi %bd, %t : index
    %n_index = arith.index_cast %n : i32 to index
    %in_range = arith.cmpi ult, %i, %n_index : index
    %v = scf.if %in_range -> (f32) {{
      %xi = memref.load %x[%i] : {BUFFER}
      scf.yield %xi : f32
    }} else {{
      scf.yield %zero : f32
    }}
    memref.store %v, %partial[%t] : memref<1024xf32, 3>
    gpu.barrier
    %half = arith.shrui %d, %c1 : index
    %last = scf.while (%stride = %half) : (index) -> index {{
      %more = arith.cmpi ugt, %stride, %c0 : index
      scf.condition(%more) %stride : index
    }} do {{
    ^bb0(%stride: index):
      %active = arith.cmpi ult, %t, %stride : index
      scf.if %active {{
        %other = arith.addi %t, %stride : index
        %mine = memref.load %partial[%t] : memref<1024xf32, 3>
        %theirs = memref.load %partial[%other] : memref<1024xf32, 3>
        %sum = arith.addf %mine, %theirs : f32
        memref.store %sum, %partial[%t] : memref<1024xf32, 3>
      }}
      gpu.barrier
      %next = arith.shrui %stride, %c1 : index
      scf.yield %next : index
    }}
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {{
      %total = memref.load %partial[%c0] : memref<1024xf32, 3>
      %old = memref.atomic_rmw addf %total, %out[%c0] : (f32, memref<1xf32, 1>) -> f32
    }}
    gpu.return
  }}
}}
}}
"""
OCKL_LOCAL_SIZE = """
define internal i64 @__ockl_get_local_size(i32 %dim) alwaysinline {
  %args = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %scaled = shl i32 %dim, 1
  %offset = add i32 %scaled, 12
  %slot = getelementptr i8, ptr addrspace(4) %args, i32 %offset
  %size = load i16, ptr addrspace(4) %slot, align 2
  %wide = zext i16 %size to i64
  ret i64 %wide
}
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
"""
"""Stand-in for ROCm's device-library function (hidden_group_size, v5)."""


def mlir16_hsaco(arch: str, tmp: Path, llc: str = "llc-16") -> bytes:
    """MLIR 16's code object; `llc`: the code generator (llc-22 separates
    what the LLVM version changes from what the front-end does)."""

    def run(*argv: str | Path) -> None:
        subprocess.run([str(a) for a in argv], check=True, capture_output=True)

    (tmp / "kernels.mlir").write_text(MLIR)
    pipeline = (
        "builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{"
        f"chipset={arch} index-bitwidth=64 use-bare-ptr-memref-call-conv=1}}),"
        "reconcile-unrealized-casts)"
    )
    run(
        "mlir-opt-16",
        tmp / "kernels.mlir",
        "--mlir-print-op-generic",
        f"--pass-pipeline={pipeline}",
        "-o",
        tmp / "rocdl.mlir",
    )
    lowered = (tmp / "rocdl.mlir").read_text()
    start = lowered.index('"gpu.module"() ({') + len('"gpu.module"() ({')
    end = lowered.index('"gpu.module_end"() : () -> ()')
    inner = '"builtin.module"() ({' + lowered[start:end] + "}) : () -> ()\n"
    (tmp / "inner.mlir").write_text(inner)
    run("mlir-translate-16", "--mlir-to-llvmir", tmp / "inner.mlir", "-o", tmp / "k.ll")
    ir = (tmp / "k.ll").read_text()
    ir = re.sub(r"^declare .*@__ockl_get_local_size\(i32\).*$", "", ir, flags=re.M)
    (tmp / "k.ll").write_text(ir + OCKL_LOCAL_SIZE)
    triple = ["-mtriple=amdgcn-amd-amdhsa", f"-mcpu={arch}"]
    run("opt-16", "-O3", *triple, tmp / "k.ll", "-o", tmp / "k.bc")
    run(llc, "-O3", *triple, "-filetype=obj", tmp / "k.bc", "-o", tmp / "k.o")
    run(llvm_tool("ld.lld"), "-shared", tmp / "k.o", "-o", tmp / "k.hsaco")
    return (tmp / "k.hsaco").read_bytes()


def instructions(hsaco: bytes, tmp: Path) -> dict[str, int]:
    """Instructions inside each kernel's symbol (its ELF value and size: the
    blocks a back-end places after `s_endpgm` count, the padding after the
    last function does not)."""
    path = tmp / "count.hsaco"
    path.write_bytes(hsaco)

    def tool(name: str, *argv: str) -> str:
        return subprocess.run(
            [str(llvm_tool(name)), *argv, str(path)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    extents: dict[str, range] = {}
    for line in tool("llvm-readelf", "--symbols", "--wide").splitlines():
        columns = line.split()
        if len(columns) == 8 and columns[3] == "FUNC":
            start = int(columns[1], 16)
            extents[columns[7]] = range(start, start + int(columns[2], 0))
    counts = dict.fromkeys(extents, 0)
    for line in tool("llvm-objdump", "-d").splitlines():
        if m := re.search(r"// ([0-9A-F]+):", line):
            address = int(m.group(1), 16)
            for kernel, extent in extents.items():
                counts[kernel] += address in extent
    return counts


def resources(hsaco: bytes, tmp: Path) -> dict[str, tuple[int, int, int]]:
    """kernel -> (VGPRs, SGPRs, instructions)."""
    counts = instructions(hsaco, tmp)
    return {
        k: (int(v[".vgpr_count"]), int(v[".sgpr_count"]), counts[k])
        for k, v in kernel_metadata(hsaco).items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="gfx90a")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gpuc-bench-") as name:
        tmp = Path(name)
        gpuc: dict[str, tuple[int, int, int]] = {}
        for kernel in KERNELS:
            hsaco = compile_module(
                EXAMPLES / f"{kernel}.mlir", "amdgpu", arch=args.arch
            ).artefact
            assert isinstance(hsaco, bytes)
            gpuc.update(resources(hsaco, tmp))
        missing = [
            t
            for t in ("mlir-opt-16", "mlir-translate-16", "opt-16", "llc-16")
            if shutil.which(t) is None
        ]
        mlir: dict[str, tuple[int, int, int]] | None = None
        mlir22: dict[str, tuple[int, int, int]] | None = None
        why = f"not run: {', '.join(missing)} missing" if missing else ""
        if not missing:
            try:
                mlir = resources(mlir16_hsaco(args.arch, tmp), tmp)
                if shutil.which("llc-22"):
                    mlir22 = resources(mlir16_hsaco(args.arch, tmp, "llc-22"), tmp)
            except subprocess.CalledProcessError as e:
                why = f"failed: {e.cmd[0]}: {e.stderr.decode().strip()[:300]}"

    print(f"{args.arch}: VGPRs / SGPRs / instructions per kernel")
    print(
        f"{'kernel':<8} {'gpuc (LLVM 22)':>16} {'MLIR 16 ROCDL':>16} {'goal':>5} "
        f"{'MLIR 16 IR, llc-22':>20}"
    )
    ok = True
    for kernel in KERNELS:
        g = gpuc[kernel]
        if mlir is None:
            print(f"{kernel:<8} {show(g):>16}   MLIR 16 path {why}")
            continue
        m = mlir[kernel]
        met = g[0] <= m[0] and g[1] <= m[1]
        ok &= met
        other = show(mlir22[kernel]) if mlir22 is not None else "(no llc-22)"
        print(
            f"{kernel:<8} {show(g):>16} {show(m):>16} {'met' if met else 'MISS':>5} "
            f"{other:>20}"
        )
    if mlir is not None:
        print(
            "goal (VGPRs and SGPRs <= the MLIR 16 path's):", "met" if ok else "missed"
        )


def show(counts: tuple[int, int, int]) -> str:
    return " / ".join(str(c) for c in counts)


if __name__ == "__main__":
    main()
