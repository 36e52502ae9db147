"""The native executor: runs the native target's LLVM IR in-process through
llvmlite's JIT, with a grid emulator following docs/native-abi.md.

A launch is one call into JIT-compiled code that gpuc generates next to the
kernels (`__gpuc_spawn` and a worker per kernel): it starts the OS threads
with `pthread_create`, each calls `__gpuc_launch_<k>` on its own launch
record, and joins them. No Python runs while a kernel runs, so the threads
never wait for the GIL.

- A kernel without barriers is a tight loop over its blocks; big launches are
  split into contiguous block ranges, one per core, each with its own shared
  memory.
- A kernel with barriers gets one OS thread per thread of the block, all
  sharing the block's shared memory and one `pthread_barrier_t`; those threads
  walk a block range together (the ABI calls the barrier after each block).
  With several blocks, there is one such group per core, each on its own
  block range and pinned to its core.
  Threads start behind a gate (a `pthread_rwlock_t` the spawner holds while
  creating them): if the system refuses a thread, the ones already started
  leave without running, so a launch fails with a message instead of hanging
  in a barrier that can never fill.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuc.runtime.args import (
    CUDA_LIMITS,
    KernelSignature,
    LaunchError,
    Limits,
    check_launch,
)
from gpuc.targets.native_abi import LAUNCH, Layout

ARG_SLOT_BYTES = 8
SYNC_OBJECT_BYTES = 128  # room for pthread_barrier_t / pthread_rwlock_t anywhere
ALIGN = 64
THREAD_STACK_BYTES = 1 << 20
SPLIT_THRESHOLD = 1 << 15  # threads in a launch before it is worth a second core
CPU_SET_BYTES = 128  # glibc's cpu_set_t

# The executor's own contract between this file and the glue IR below. Per OS
# thread: the ABI's launch record, then where that thread's worker finds the
# launch's control block, where pthread_create puts its pthread_t, and the CPU
# set to pin it to (null: not pinned). Records are ALIGN-strided, so no two
# threads' records share a cache line.
RECORD = LAUNCH.then(("control", 1), ("thread_handle", 1), ("cpu_set", 1))
RECORD_BYTES = -(-RECORD.size // ALIGN) * ALIGN
# One per launch: the argument slots, the gate (a pthread_rwlock_t; null when
# the spawner runs the only worker itself), and the abort flag (an i32) the
# spawner sets when a pthread_create fails.
CONTROL = Layout((("args", 1), ("gate", 1), ("abort", 1)))

_PTHREAD_FUNCTIONS = (
    "pthread_create",
    "pthread_join",
    "pthread_attr_init",
    "pthread_attr_setstacksize",
    "pthread_attr_destroy",
    "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock",
    "pthread_rwlock_unlock",
    "pthread_self",
    "pthread_setaffinity_np",
)

# Starts `n` workers on consecutive records (or runs the only one inline) and
# joins them; returns 0 or the error of the pthread_create that failed.
_SPAWN_IR = f"""
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(i64, ptr)
declare i32 @pthread_attr_init(ptr)
declare i32 @pthread_attr_setstacksize(ptr, i64)
declare i32 @pthread_attr_destroy(ptr)
declare i32 @pthread_rwlock_rdlock(ptr)
declare i32 @pthread_rwlock_wrlock(ptr)
declare i32 @pthread_rwlock_unlock(ptr)
declare i64 @pthread_self()
declare i32 @pthread_setaffinity_np(i64, i64, ptr)

define i32 @__gpuc_spawn(ptr %worker, ptr %recs, i64 %n, ptr %ctl, i64 %stack) {{
entry:
  %attr = alloca [128 x i8], align 16
  %one = icmp eq i64 %n, 1
  br i1 %one, label %inline, label %threads
inline:
  %r = call ptr %worker(ptr %recs)
  ret i32 0
threads:
  %lockp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("gate")}
  %lock = load ptr, ptr %lockp
  call i32 @pthread_attr_init(ptr %attr)
  call i32 @pthread_attr_setstacksize(ptr %attr, i64 %stack)
  call i32 @pthread_rwlock_wrlock(ptr %lock)
  br label %create
create:
  %i = phi i64 [ 0, %threads ], [ %inext, %created ]
  %off = mul i64 %i, {RECORD_BYTES}
  %rec = getelementptr i8, ptr %recs, i64 %off
  %tidp = getelementptr i8, ptr %rec, i64 {RECORD.offset("thread_handle")}
  %rc = call i32 @pthread_create(ptr %tidp, ptr %attr, ptr %worker, ptr %rec)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %created, label %failed
created:
  %inext = add i64 %i, 1
  %more = icmp ult i64 %inext, %n
  br i1 %more, label %create, label %release
failed:
  %abortp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("abort")}
  store i32 1, ptr %abortp
  br label %release
release:
  %started = phi i64 [ %n, %created ], [ %i, %failed ]
  %err = phi i32 [ 0, %created ], [ %rc, %failed ]
  call i32 @pthread_rwlock_unlock(ptr %lock)
  call i32 @pthread_attr_destroy(ptr %attr)
  %any = icmp ugt i64 %started, 0
  br i1 %any, label %join, label %out
join:
  %j = phi i64 [ 0, %release ], [ %jnext, %join ]
  %joff = mul i64 %j, {RECORD_BYTES}
  %recj = getelementptr i8, ptr %recs, i64 %joff
  %tidq = getelementptr i8, ptr %recj, i64 {RECORD.offset("thread_handle")}
  %tid = load i64, ptr %tidq
  call i32 @pthread_join(i64 %tid, ptr null)
  %jnext = add i64 %j, 1
  %jmore = icmp ult i64 %jnext, %started
  br i1 %jmore, label %join, label %out
out:
  ret i32 %err
}}
"""


def _load_compiler_runtime(llvm: Any) -> None:
    """LLVM lowers some operations to calls into the compiler's runtime
    library (i128 division and remainder: `__divti3`, `__modti3`, ...), which
    a JIT does not link; libgcc_s, present wherever glibc is, defines them."""
    import ctypes.util

    for name in (ctypes.util.find_library("gcc_s"), "libgcc_s.so.1"):
        if name:
            try:
                llvm.load_library_permanently(name)
                return
            except RuntimeError:
                continue


def _worker_ir(kernel: str, entry: str, arg_types: Sequence[str]) -> str:
    """A pthread start routine that waits at the gate, unpacks the argument
    slots and calls the kernel's launch entry `entry` with its record."""
    loads: list[str] = []
    call_args = ["ptr %rec"]
    for i, ty in enumerate(arg_types):
        slot = f"%s{i}"
        loads.append(
            f"  {slot} = getelementptr i8, ptr %args, i64 {i * ARG_SLOT_BYTES}"
        )
        if ty == "i1":  # stored as a byte by the host
            loads.append(f"  %b{i} = load i8, ptr {slot}")
            loads.append(f"  %a{i} = trunc i8 %b{i} to i1")
        else:
            loads.append(f"  %a{i} = load {ty}, ptr {slot}")
        call_args.append(f"{ty} %a{i}")
    return f"""
declare void @"{entry}"({", ".join(["ptr", *arg_types])})

define ptr @"__gpuc_worker_{kernel}"(ptr %rec) {{
entry:
  %ctlp = getelementptr i8, ptr %rec, i64 {RECORD.offset("control")}
  %ctl = load ptr, ptr %ctlp
  %lockp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("gate")}
  %lock = load ptr, ptr %lockp
  %gated = icmp ne ptr %lock, null
  br i1 %gated, label %gate, label %run
gate:
  call i32 @pthread_rwlock_rdlock(ptr %lock)
  %abortp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("abort")}
  %abort = load i32, ptr %abortp
  call i32 @pthread_rwlock_unlock(ptr %lock)
  %stop = icmp ne i32 %abort, 0
  br i1 %stop, label %done, label %run
run:
  %maskp = getelementptr i8, ptr %rec, i64 {RECORD.offset("cpu_set")}
  %mask = load ptr, ptr %maskp
  %pin = icmp ne ptr %mask, null
  br i1 %pin, label %pinning, label %go
pinning:
  %self = call i64 @pthread_self()
  call i32 @pthread_setaffinity_np(i64 %self, i64 {CPU_SET_BYTES}, ptr %mask)
  br label %go
go:
  %argsp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("args")}
  %args = load ptr, ptr %argsp
{chr(10).join(loads)}
  call void @"{entry}"({", ".join(call_args)})
  br label %done
done:
  ret ptr null
}}
"""


def _pthread(rc: int, what: str) -> None:
    if rc != 0:
        raise LaunchError(f"native executor: pthread {what} failed: {os.strerror(rc)}")


def _argument_slots(values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """One 8-byte slot per argument, as the workers load them: an array's
    address, or a scalar's bytes (numpy scalars of the parameter's type)."""
    slots = np.zeros(max(1, len(values)), np.uint64)
    raw = slots.view(np.uint8)
    for i, value in enumerate(values):
        if isinstance(value, np.ndarray):
            slots[i] = value.ctypes.data
        else:
            data = value.tobytes()
            raw[i * ARG_SLOT_BYTES : i * ARG_SLOT_BYTES + len(data)] = list(data)
    return slots


def _cpu_masks(groups: int) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], int]:
    """One cpu_set_t per group naming one CPU each, round robin over the CPUs
    this process may use: a group's threads then switch among themselves on
    one core, which halves the cost of a barrier against letting the
    scheduler spread them (measured: reduce, matmul)."""
    masks, masks_at = _aligned(groups * CPU_SET_BYTES)
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        cpus = list(range(os.cpu_count() or 1))
    words = CPU_SET_BYTES // 8
    for group in range(groups):
        cpu = cpus[group % len(cpus)]
        if cpu < CPU_SET_BYTES * 8:  # else an empty set: pinning fails, harmlessly
            masks[group * words + cpu // 64] |= np.uint64(1 << (cpu % 64))
    return masks, masks_at


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    for fn in ("pthread_barrier_init", "pthread_barrier_destroy"):
        if not hasattr(libc, fn):
            raise LaunchError(
                "the native executor needs POSIX barriers (pthread_barrier_*), "
                "which this C library does not provide"
            )
    libc.pthread_barrier_init.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_uint,
    ]
    libc.pthread_barrier_destroy.argtypes = [ctypes.c_void_p]
    libc.pthread_rwlock_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    libc.pthread_rwlock_destroy.argtypes = [ctypes.c_void_p]
    return libc


def _aligned(nbytes: int) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], int]:
    """A zeroed, ALIGN-aligned buffer of `nbytes` (a multiple of 8) as uint64
    words, and its address; the caller keeps it alive while JIT code uses it."""
    buf = np.zeros(nbytes + ALIGN, np.uint8)
    offset = -buf.ctypes.data % ALIGN
    words = buf[offset : offset + nbytes].view(np.uint64)
    return words, int(words.ctypes.data)


_jit_lock = threading.Lock()


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class _Plan:
    """How one launch maps onto OS threads: `groups` block ranges, each run by
    `threads` OS threads (1 for barrier-free kernels)."""

    groups: int
    threads: int


class NativeExecutor:
    """JIT-compiles a native-target module once and launches its kernels."""

    code_field = "llvm_ir"

    def __init__(
        self,
        llvm_ir: str,
        kernels: Mapping[str, KernelSignature],
        *,
        workers: int | None = None,
        limits: Limits = CUDA_LIMITS,
    ) -> None:
        import llvmlite.binding as llvm

        self.kernels = dict(kernels)
        self.limits = limits
        self.workers = workers or _cpu_count()
        self._libc = _libc()
        with _jit_lock:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            for name in _PTHREAD_FUNCTIONS:
                address = ctypes.cast(getattr(self._libc, name), ctypes.c_void_p).value
                llvm.add_symbol(name, address)
            _load_compiler_runtime(llvm)
            module = llvm.parse_assembly(llvm_ir)
            worker_ir = [_SPAWN_IR]
            for name, sig in self.kernels.items():
                worker_ir.append(
                    _worker_ir(
                        name, sig.launch_symbol, self._entry_arg_types(module, sig)
                    )
                )
            glue = llvm.parse_assembly(
                f'target triple = "{module.triple}"\n'
                f'target datalayout = "{module.data_layout}"\n' + "".join(worker_ir)
            )
            module.link_in(glue)
            module.verify()
            target = llvm.Target.from_triple(module.triple or llvm.get_process_triple())
            machine = target.create_target_machine(
                cpu=llvm.get_host_cpu_name(),
                features=llvm.get_host_cpu_features().flatten(),
                opt=3,
                jit=True,
            )
            self._engine = llvm.create_mcjit_compiler(module, machine)
            self._engine.finalize_object()
            self._spawn = ctypes.CFUNCTYPE(
                ctypes.c_int32,
                ctypes.c_void_p,
                ctypes.c_void_p,
                ctypes.c_int64,
                ctypes.c_void_p,
                ctypes.c_int64,
            )(self._engine.get_function_address("__gpuc_spawn"))
            self._workers = {
                name: self._engine.get_function_address(f"__gpuc_worker_{name}")
                for name in self.kernels
            }
        self._barrier_wait = int(
            ctypes.cast(self._libc.pthread_barrier_wait, ctypes.c_void_p).value or 0
        )

    @staticmethod
    def _entry_arg_types(module: Any, sig: KernelSignature) -> list[str]:
        """The LLVM types of `__gpuc_launch_<k>`'s arguments after `launch`,
        checked against the signature the compiler reported."""
        entry = sig.launch_symbol
        try:
            fn = module.get_function(entry)
        except NameError:
            raise LaunchError(
                f"kernel '{sig.name}': the native module defines no '{entry}' "
                "(see docs/native-abi.md); was it compiled for the native target?"
            ) from None
        types = [str(a.type) for a in fn.arguments]
        if len(types) != len(sig.params) + 1 or types[0] != "ptr":
            raise LaunchError(
                f"kernel '{sig.name}': '{entry}' takes ({', '.join(types)}), which "
                f"does not match (ptr launch, {len(sig.params)} kernel parameters)"
            )
        return types[1:]

    def _plan(self, sig: KernelSignature, blocks: int, threads: int) -> _Plan:
        if sig.uses_barrier:
            return _Plan(max(1, min(blocks, self.workers)), threads)
        if blocks * threads < SPLIT_THRESHOLD:
            return _Plan(1, 1)
        return _Plan(min(blocks, self.workers), 1)

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        launch = check_launch(
            self.kernels, name, grid, block, args, lambda _: self.limits
        )
        sig = launch.sig
        plan = self._plan(sig, launch.blocks, launch.threads)
        n = plan.groups * plan.threads
        shared_stride = -(-max(sig.static_shared_bytes, 1) // ALIGN) * ALIGN
        # The JIT code points into these buffers; they live until after the join.
        slots = _argument_slots(launch.values)
        records, records_at = _aligned(n * RECORD_BYTES)
        shared, shared_at = _aligned(plan.groups * shared_stride)
        ctl, ctl_at = _aligned(SYNC_OBJECT_BYTES)
        sync, sync_at = _aligned((plan.groups + 1) * SYNC_OBJECT_BYTES)
        masks, masks_at = _cpu_masks(plan.groups)
        barriers = [sync_at + g * SYNC_OBJECT_BYTES for g in range(plan.groups)]
        lock_at = sync_at + plan.groups * SYNC_OBJECT_BYTES
        ctl[CONTROL.word("args")] = slots.ctypes.data
        ctl[CONTROL.word("gate")] = lock_at if n > 1 else 0

        view = records.reshape(n, RECORD_BYTES // 8)
        per_group, extra = divmod(launch.blocks, plan.groups)
        begin = 0
        for group in range(plan.groups):
            end = begin + per_group + (1 if group < extra else 0)
            rows = view[group * plan.threads : (group + 1) * plan.threads]
            rows[:, RECORD.words("grid_dim")] = launch.grid
            rows[:, RECORD.words("block_dim")] = launch.block
            rows[:, RECORD.word("block_begin")] = begin
            rows[:, RECORD.word("block_end")] = end
            rows[:, RECORD.word("shared")] = shared_at + group * shared_stride
            rows[:, RECORD.word("barrier")] = self._barrier_wait
            rows[:, RECORD.word("barrier_arg")] = barriers[group]
            rows[:, RECORD.word("thread")] = np.arange(plan.threads, dtype=np.uint64)
            rows[:, RECORD.word("control")] = ctl_at
            if plan.groups > 1:
                rows[:, RECORD.word("cpu_set")] = masks_at + group * CPU_SET_BYTES
            begin = end

        libc = self._libc
        made: list[tuple[Any, int]] = []  # (destroy function, object) to undo
        try:
            if n > 1:
                _pthread(libc.pthread_rwlock_init(lock_at, None), "rwlock init")
                made.append((libc.pthread_rwlock_destroy, lock_at))
            if sig.uses_barrier:
                for barrier in barriers:
                    rc = libc.pthread_barrier_init(barrier, None, plan.threads)
                    _pthread(rc, "barrier init")
                    made.append((libc.pthread_barrier_destroy, barrier))
            err = self._spawn(
                self._workers[name], records_at, n, ctl_at, THREAD_STACK_BYTES
            )
        finally:
            for destroy, obj in made:
                destroy(obj)
        del records, shared, ctl, sync, slots, masks
        if err:
            raise LaunchError(
                f"kernel '{name}': the system refused to start the {n} OS threads "
                f"of this launch ({os.strerror(err)}); nothing ran. Use a smaller "
                "block or raise the thread limit (ulimit -u)"
            )
