"""Hand-written LLVM IR following docs/native-abi.md, so the native executor's
threading, shared-memory and error-reporting machinery is tested on its own,
without the compiler. Launch record fields are read at the offsets of the ABI's table
(gpuc/targets/native/abi.py), the layout the native target builds.
"""

from __future__ import annotations

from gpuc.runtime.args import KernelSignature, Param
from gpuc.targets.native.abi import LAUNCH, entry_point


def load(value: str, field: str, dim: int = 0, ty: str = "i64") -> str:
    """IR that loads launch record field `field` (component `dim`) as `%value`."""
    return (
        f"  %{value}p = getelementptr i8, ptr %launch, i64 "
        f"{LAUNCH.offset(field, dim)}\n  %{value} = load {ty}, ptr %{value}p"
    )


def threads_and_range() -> str:
    """IR for `%nt` (threads per block) and `%begin`, `%end` (the block range)."""
    return "\n".join(
        [
            *(load(f"b{xyz}", "block_dim", d) for d, xyz in enumerate("xyz")),
            "  %bxy = mul i64 %bx, %by",
            "  %nt = mul i64 %bxy, %bz",
            load("begin", "block_begin"),
            load("end", "block_end"),
        ]
    )


def copy_dims(to: str) -> str:
    """IR that stores grid_dim x, y, z then block_dim x, y, z into `%to[0..6]`."""
    lines: list[str] = []
    dims = [(field, d) for field in ("grid_dim", "block_dim") for d in range(3)]
    for i, (field, d) in enumerate(dims):
        lines.append(load(f"dim{i}", field, d))
        lines.append(f"  %to{i} = getelementptr i64, ptr %{to}, i64 {i}")
        lines.append(f"  store i64 %dim{i}, ptr %to{i}")
    return "\n".join(lines)


# ids(out: ptr<i64>, meta: ptr<i64>): every thread of every block writes
# out[linear block * threads + linear thread] = that index + 1; thread 0 of
# block 0 writes grid and block dims into meta[0..6]. No barrier.
IDS = f"""
define void @{entry_point("ids")}(ptr %launch, ptr %out, ptr %meta) {{
entry:
{threads_and_range()}
  %first = icmp eq i64 %begin, 0
  br i1 %first, label %writemeta, label %check
writemeta:
{copy_dims("meta")}
  br label %check
check:
  %any = icmp ult i64 %begin, %end
  br i1 %any, label %blocks, label %exit
blocks:
  %b = phi i64 [ %begin, %check ], [ %bnext, %blockdone ]
  %base = mul i64 %b, %nt
  br label %threads
threads:
  %t = phi i64 [ 0, %blocks ], [ %tnext, %threads ]
  %i = add i64 %base, %t
  %v = add i64 %i, 1
  %p = getelementptr i64, ptr %out, i64 %i
  store i64 %v, ptr %p
  %tnext = add i64 %t, 1
  %tmore = icmp ult i64 %tnext, %nt
  br i1 %tmore, label %threads, label %blockdone
blockdone:
  %bnext = add i64 %b, 1
  %bmore = icmp ult i64 %bnext, %end
  br i1 %bmore, label %blocks, label %exit
exit:
  ret void
}}
"""

IDS_SIG = KernelSignature(
    "ids",
    (Param("out", "i64", "global"), Param("meta", "i64", "global")),
    symbol=entry_point("ids"),
)

# bsum(x: ptr<i32>, out: ptr<i32>, n: i32): out[block] = sum of x over the
# block's elements (i < n), by a tree reduction in shared memory; works for
# any block size (tree over the next power of two). Written as the native
# target writes a kernel with barriers: the entry runs whole blocks, each
# level of the tree a loop over the block's threads.
BSUM = f"""
define void @{entry_point("bsum")}(ptr %launch, ptr %x, ptr %out, i32 %n) {{
entry:
{threads_and_range()}
{load("sh", "shared", ty="ptr")}
  %n64 = sext i32 %n to i64
  br label %pow
pow:
  %pw = phi i64 [ 1, %entry ], [ %pw2, %pow ]
  %pw2 = shl i64 %pw, 1
  %small = icmp ult i64 %pw, %nt
  br i1 %small, label %pow, label %powdone
powdone:
  %any = icmp ult i64 %begin, %end
  br i1 %any, label %block, label %exit
block:
  %b = phi i64 [ %begin, %powdone ], [ %bnext, %write ]
  %base = mul i64 %b, %nt
  br label %fill
fill:
  %t = phi i64 [ 0, %block ], [ %tnext, %st ]
  %i = add i64 %base, %t
  %inb = icmp ult i64 %i, %n64
  br i1 %inb, label %ld, label %st
ld:
  %xp = getelementptr i32, ptr %x, i64 %i
  %xv = load i32, ptr %xp
  br label %st
st:
  %v = phi i32 [ %xv, %ld ], [ 0, %fill ]
  %mine = getelementptr i32, ptr %sh, i64 %t
  store i32 %v, ptr %mine
  %tnext = add i64 %t, 1
  %tmore = icmp ult i64 %tnext, %nt
  br i1 %tmore, label %fill, label %filled
filled:
  %s0 = lshr i64 %pw, 1
  %go = icmp ne i64 %s0, 0
  br i1 %go, label %level, label %write
level:
  %s = phi i64 [ %s0, %filled ], [ %snext, %levelend ]
  br label %lthread
lthread:
  %u = phi i64 [ 0, %level ], [ %unext, %lnext ]
  %lo = icmp ult i64 %u, %s
  %other = add i64 %u, %s
  %hi = icmp ult i64 %other, %nt
  %both = and i1 %lo, %hi
  br i1 %both, label %addit, label %lnext
addit:
  %op = getelementptr i32, ptr %sh, i64 %other
  %ov = load i32, ptr %op
  %up = getelementptr i32, ptr %sh, i64 %u
  %mv = load i32, ptr %up
  %sum = add i32 %mv, %ov
  store i32 %sum, ptr %up
  br label %lnext
lnext:
  %unext = add i64 %u, 1
  %umore = icmp ult i64 %unext, %nt
  br i1 %umore, label %lthread, label %levelend
levelend:
  %snext = lshr i64 %s, 1
  %smore = icmp ne i64 %snext, 0
  br i1 %smore, label %level, label %write
write:
  %r = load i32, ptr %sh
  %outp = getelementptr i32, ptr %out, i64 %b
  store i32 %r, ptr %outp
  %bnext = add i64 %b, 1
  %bmore = icmp ult i64 %bnext, %end
  br i1 %bmore, label %block, label %exit
exit:
  ret void
}}
"""

# fails(): reports an error at the first block of its range, as a work-group
# function whose threads disagree at a barrier makes the entry do.
FAILS = f"""
@fails.message = private constant [14 x i8] c"it went wrong\\00"

define void @{entry_point("fails")}(ptr %launch) {{
entry:
{load("begin", "block_begin")}
  %errp = getelementptr i8, ptr %launch, i64 {LAUNCH.offset("error")}
  store ptr @fails.message, ptr %errp
  %blockp = getelementptr i8, ptr %launch, i64 {LAUNCH.offset("error_block")}
  store i64 %begin, ptr %blockp
  ret void
}}
"""

FAILS_SIG = KernelSignature("fails", (), symbol=entry_point("fails"))


def bsum_sig(shared_bytes: int = 4 * 1024) -> KernelSignature:
    return KernelSignature(
        "bsum",
        (Param("x", "i32", "global"), Param("out", "i32", "global"), Param("n", "i32")),
        uses_barrier=True,
        static_shared_bytes=shared_bytes,
        symbol=entry_point("bsum"),
    )


# scalars(out: ptr<f64>, a: f32, b: f64, c: i8, d: i1, e: index, f: i16):
# one thread writes every scalar argument, converted to f64, into out[0..5].
SCALARS = f"""
define void @{entry_point("scalars")}(ptr %launch, ptr %out, float %a, double %b,
                                   i8 %c, i1 %d, i64 %e, i16 %f) {{
entry:
  %av = fpext float %a to double
  store double %av, ptr %out
  %p1 = getelementptr double, ptr %out, i64 1
  store double %b, ptr %p1
  %cv = sitofp i8 %c to double
  %p2 = getelementptr double, ptr %out, i64 2
  store double %cv, ptr %p2
  %dv = uitofp i1 %d to double
  %p3 = getelementptr double, ptr %out, i64 3
  store double %dv, ptr %p3
  %ev = sitofp i64 %e to double
  %p4 = getelementptr double, ptr %out, i64 4
  store double %ev, ptr %p4
  %fv = sitofp i16 %f to double
  %p5 = getelementptr double, ptr %out, i64 5
  store double %fv, ptr %p5
  ret void
}}
"""

SCALARS_SIG = KernelSignature(
    "scalars",
    (
        Param("out", "f64", "global"),
        Param("a", "f32"),
        Param("b", "f64"),
        Param("c", "i8"),
        Param("d", "i1"),
        Param("e", "index"),
        Param("f", "i16"),
    ),
    symbol=entry_point("scalars"),
)
