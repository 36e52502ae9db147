"""The native executor's worker threads: one pool per process, grown on the
launches big enough to split (`Pool.grow`), its OS threads parked on a
condition variable between launches, so a launch hands its block ranges to
threads that exist instead of creating (and later joining) threads: a split
launch of a trivial 64K-thread kernel took 83 µs with a thread created per
launch, 40 µs on the pool (one thread alone: 17 µs).

`__gpuc_run` (LLVM IR, JIT-compiled once per process) offers a launch to the
pool and works itself: every participant claims chunks of blocks from the
launch's control block until none are left, then drops its reference to it;
the call returns once every claimed chunk is done. A pool thread that wakes
late finds no chunk, or no offer (withdrawn under the pool's mutex before the
caller drops its own reference), so what it touches after a launch returns
is at most the control block, freed by whoever holds its last reference, and
the pool's own code: an executor's code (`__gpuc_call_<k>`) runs only for a
claimed chunk, so an executor may go as soon as its launches have returned.
No Python runs while a launch runs.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import threading
from typing import Any

import numpy as np

from gpuc.targets.native.abi import LAUNCH, Layout

ALIGN = 64
SYNC_OBJECT_BYTES = 128  # room for a pthread mutex, condition or rwlock
THREAD_STACK_BYTES = 1 << 20
MAX_WORKERS = 64
"""Workers of one launch at most (the caller and the pool's threads)."""

RECORD = LAUNCH
"""Per worker: the ABI's launch record, ALIGN-strided (`RECORD_BYTES`), so no
two workers' records share a cache line."""
RECORD_BYTES = -(-RECORD.size // ALIGN) * ALIGN

# One per launch, malloc'ed by `__gpuc_run`: the references held (the
# caller's, its own worker's and one per pool thread that took the launch),
# the next block to claim, the blocks done, the blocks in all, the blocks a
# worker claims at a time, the failed flag (a block reported an error: the
# others are skipped), the argument slots and the bytes between two workers'
# rows of them, the records and the kernel's call
# (`__gpuc_call_<k>`, the executor's code, which no thread runs once the
# launch has returned: only a claimed chunk calls it).
CONTROL = Layout(
    (
        ("refs", 1),
        ("next", 1),
        ("done", 1),
        ("total", 1),
        ("chunk", 1),
        ("failed", 1),
        ("args", 1),
        ("stride", 1),
        ("records", 1),
        ("call", 1),
    )
)
CONTROL_BYTES = -(-CONTROL.size // ALIGN) * ALIGN

# The pool, one per process: the offer's generation (each offer wakes the
# threads), the control block of the launch offered (null: none), how many
# pool threads may take it and how many did, the shutdown flag, the threads
# started and their pthread_t; then its mutex and condition.
POOL = Layout(
    (
        ("generation", 1),
        ("control", 1),
        ("slots", 1),
        ("taken", 1),
        ("shutdown", 1),
        ("threads", 1),
        ("handles", MAX_WORKERS),
    )
)
POOL_MUTEX = -(-POOL.size // ALIGN) * ALIGN
POOL_COND = POOL_MUTEX + SYNC_OBJECT_BYTES
POOL_BYTES = POOL_COND + SYNC_OBJECT_BYTES

LIBC_FUNCTIONS = (
    "pthread_create",
    "pthread_join",
    "pthread_attr_init",
    "pthread_attr_setstacksize",
    "pthread_attr_destroy",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_cond_init",
    "pthread_cond_destroy",
    "pthread_cond_wait",
    "pthread_cond_broadcast",
    "pthread_cond_signal",
    "sched_yield",
)


def _pool_field(name: str) -> str:
    return f"getelementptr i8, ptr %pool, i64 {POOL.offset(name)}"


def _control_field(name: str) -> str:
    return f"getelementptr i8, ptr %ctl, i64 {CONTROL.offset(name)}"


_CONTROL_INIT = "\n".join(
    f"  %c.{name} = {_control_field(name)}\n  store {ty} {value}, ptr %c.{name}"
    for name, ty, value in (
        ("refs", "i64", "2"),  # the caller's and its own worker's
        ("next", "i64", "0"),
        ("done", "i64", "0"),
        ("total", "i64", "%total"),
        ("chunk", "i64", "%chunk"),
        ("failed", "i64", "0"),
        ("args", "ptr", "%args"),
        ("stride", "i64", "%stride"),
        ("records", "ptr", "%recs"),
        ("call", "ptr", "%call"),
    )
)

POOL_IR = f"""
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(i64, ptr)
declare i32 @pthread_attr_init(ptr)
declare i32 @pthread_attr_setstacksize(ptr, i64)
declare i32 @pthread_attr_destroy(ptr)
declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_mutex_destroy(ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_cond_destroy(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @pthread_cond_signal(ptr)
declare i32 @sched_yield()
declare ptr @aligned_alloc(i64, i64)
declare void @free(ptr)

define void @__gpuc_release(ptr %ctl) {{
entry:
  %old = atomicrmw sub ptr %ctl, i64 1 seq_cst
  %last = icmp eq i64 %old, 1
  br i1 %last, label %free, label %out
free:
  call void @free(ptr %ctl)
  br label %out
out:
  ret void
}}

; Worker `index` of the launch `ctl`: claims chunks of blocks and runs each
; through the kernel's call on its own record, until no chunk is left; then
; drops its reference to `ctl`.
define void @__gpuc_worker(ptr %ctl, i64 %index) {{
entry:
  %nextp = {_control_field("next")}
  %donep = {_control_field("done")}
  %failedp = {_control_field("failed")}
  %totalp = {_control_field("total")}
  %total = load i64, ptr %totalp
  %chunkp = {_control_field("chunk")}
  %chunk = load i64, ptr %chunkp
  %recsp = {_control_field("records")}
  %recs = load ptr, ptr %recsp
  %argsp = {_control_field("args")}
  %args0 = load ptr, ptr %argsp
  %stridep = {_control_field("stride")}
  %stride = load i64, ptr %stridep
  %argsoff = mul i64 %index, %stride
  %args = getelementptr i8, ptr %args0, i64 %argsoff
  %callp = {_control_field("call")}
  %call = load ptr, ptr %callp
  %off = mul i64 %index, {RECORD_BYTES}
  %rec = getelementptr i8, ptr %recs, i64 %off
  %beginp = getelementptr i8, ptr %rec, i64 {RECORD.offset("block_begin")}
  %endp = getelementptr i8, ptr %rec, i64 {RECORD.offset("block_end")}
  %errorp = getelementptr i8, ptr %rec, i64 {RECORD.offset("error")}
  br label %claim
claim:
  %begin = atomicrmw add ptr %nextp, i64 %chunk seq_cst
  %more = icmp ult i64 %begin, %total
  br i1 %more, label %claimed, label %release
claimed:
  %end0 = add i64 %begin, %chunk
  %over = icmp ugt i64 %end0, %total
  %end = select i1 %over, i64 %total, i64 %end0
  %failed = load atomic i64, ptr %failedp monotonic, align 8
  %skip = icmp ne i64 %failed, 0
  br i1 %skip, label %finish, label %run
run:
  store i64 %begin, ptr %beginp
  store i64 %end, ptr %endp
  call void %call(ptr %rec, ptr %args)
  %error = load i64, ptr %errorp
  %bad = icmp ne i64 %error, 0
  br i1 %bad, label %mark, label %finish
mark:
  store atomic i64 1, ptr %failedp monotonic, align 8
  br label %finish
finish:
  %count = sub i64 %end, %begin
  atomicrmw add ptr %donep, i64 %count release
  br label %claim
release:
  call void @__gpuc_release(ptr %ctl)
  ret void
}}

define ptr @__gpuc_pool_thread(ptr %pool) {{
entry:
  %mutex = getelementptr i8, ptr %pool, i64 {POOL_MUTEX}
  %cond = getelementptr i8, ptr %pool, i64 {POOL_COND}
  %genp = {_pool_field("generation")}
  %ctlp = {_pool_field("control")}
  %slotsp = {_pool_field("slots")}
  %takenp = {_pool_field("taken")}
  %shutdownp = {_pool_field("shutdown")}
  br label %lock
lock:
  %seen = phi i64 [ 0, %entry ], [ %gen, %take ], [ %gen, %none ]
  call i32 @pthread_mutex_lock(ptr %mutex)
  br label %check
check:
  %gen = load i64, ptr %genp
  %shutdown = load i64, ptr %shutdownp
  %stop = icmp ne i64 %shutdown, 0
  br i1 %stop, label %leave, label %offered
offered:
  %same = icmp eq i64 %gen, %seen
  br i1 %same, label %sleep, label %woken
sleep:
  call i32 @pthread_cond_wait(ptr %cond, ptr %mutex)
  br label %check
woken:
  %ctl = load ptr, ptr %ctlp
  %slots = load i64, ptr %slotsp
  %taken = load i64, ptr %takenp
  %some = icmp ne ptr %ctl, null
  %room = icmp ult i64 %taken, %slots
  %takes = and i1 %some, %room
  br i1 %takes, label %take, label %none
take:
  %index = add i64 %taken, 1
  store i64 %index, ptr %takenp
  atomicrmw add ptr %ctl, i64 1 seq_cst
  call i32 @pthread_mutex_unlock(ptr %mutex)
  call void @__gpuc_worker(ptr %ctl, i64 %index)
  br label %lock
none:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %lock
leave:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  ret ptr null
}}

; Starts threads until the pool has `want` (or the system refuses one);
; returns how many it has.
define i64 @__gpuc_pool_grow(ptr %pool, i64 %want, i64 %stack) {{
entry:
  %attr = alloca [128 x i8], align 16
  %threadsp = {_pool_field("threads")}
  %have = load i64, ptr %threadsp
  %first = icmp eq i64 %have, 0
  br i1 %first, label %init, label %start
init:
  %mutex = getelementptr i8, ptr %pool, i64 {POOL_MUTEX}
  %cond = getelementptr i8, ptr %pool, i64 {POOL_COND}
  call i32 @pthread_mutex_init(ptr %mutex, ptr null)
  call i32 @pthread_cond_init(ptr %cond, ptr null)
  br label %start
start:
  call i32 @pthread_attr_init(ptr %attr)
  call i32 @pthread_attr_setstacksize(ptr %attr, i64 %stack)
  br label %head
head:
  %i = phi i64 [ %have, %start ], [ %next, %created ]
  %more = icmp ult i64 %i, %want
  br i1 %more, label %create, label %done
create:
  %off = mul i64 %i, 8
  %handles = {_pool_field("handles")}
  %handle = getelementptr i8, ptr %handles, i64 %off
  %rc = call i32 @pthread_create(ptr %handle, ptr %attr,
                                 ptr @__gpuc_pool_thread, ptr %pool)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %created, label %done
created:
  %next = add i64 %i, 1
  store i64 %next, ptr %threadsp
  br label %head
done:
  %count = phi i64 [ %i, %head ], [ %i, %create ]
  call i32 @pthread_attr_destroy(ptr %attr)
  ret i64 %count
}}

define void @__gpuc_pool_stop(ptr %pool) {{
entry:
  %mutex = getelementptr i8, ptr %pool, i64 {POOL_MUTEX}
  %cond = getelementptr i8, ptr %pool, i64 {POOL_COND}
  %threadsp = {_pool_field("threads")}
  %threads = load i64, ptr %threadsp
  %none = icmp eq i64 %threads, 0
  br i1 %none, label %out, label %signal
signal:
  call i32 @pthread_mutex_lock(ptr %mutex)
  %shutdownp = {_pool_field("shutdown")}
  store i64 1, ptr %shutdownp
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %join
join:
  %i = phi i64 [ 0, %signal ], [ %next, %join ]
  %off = mul i64 %i, 8
  %handles = {_pool_field("handles")}
  %handle = getelementptr i8, ptr %handles, i64 %off
  %tid = load i64, ptr %handle
  call i32 @pthread_join(i64 %tid, ptr null)
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %threads
  br i1 %more, label %join, label %destroy
destroy:
  call i32 @pthread_cond_destroy(ptr %cond)
  call i32 @pthread_mutex_destroy(ptr %mutex)
  store i64 0, ptr %threadsp
  br label %out
out:
  ret void
}}

; Runs a launch's `total` blocks on `n` workers (records `recs`, argument
; slots `args`, worker i's row `stride` bytes after worker i - 1's) in chunks
; of `chunk`: offers it to n - 1 pool threads, runs worker 0 here, waits
; for every claimed chunk, withdraws the offer. Returns 0, or ENOMEM
; (nothing ran) if the control block cannot be allocated.
define i32 @__gpuc_run(ptr %pool, ptr %call, ptr %recs, i64 %n, ptr %args,
                       i64 %stride, i64 %total, i64 %chunk) {{
entry:
  %ctl = call ptr @aligned_alloc(i64 {ALIGN}, i64 {CONTROL_BYTES})
  %nomem = icmp eq ptr %ctl, null
  br i1 %nomem, label %refused, label %init
refused:
  ret i32 12
init:
{_CONTROL_INIT}
  %mutex = getelementptr i8, ptr %pool, i64 {POOL_MUTEX}
  %cond = getelementptr i8, ptr %pool, i64 {POOL_COND}
  %threadsp = {_pool_field("threads")}
  %threads = load i64, ptr %threadsp
  %alone = icmp ule i64 %n, 1
  %nobody = icmp eq i64 %threads, 0
  %solo = or i1 %alone, %nobody
  br i1 %solo, label %run, label %offer
offer:
  call i32 @pthread_mutex_lock(ptr %mutex)
  %ctlp = {_pool_field("control")}
  store ptr %ctl, ptr %ctlp
  %slots = sub i64 %n, 1
  %slotsp = {_pool_field("slots")}
  store i64 %slots, ptr %slotsp
  %takenp = {_pool_field("taken")}
  store i64 0, ptr %takenp
  %genp = {_pool_field("generation")}
  %gen = load i64, ptr %genp
  %gen1 = add i64 %gen, 1
  store atomic i64 %gen1, ptr %genp monotonic, align 8
  br label %wake
wake:
  ; One wake-up per slot, not a broadcast: a pool grown for a wide launch
  ; does not wake all its threads for a narrow one.
  %woken = phi i64 [ 0, %offer ], [ %woken1, %wake ]
  call i32 @pthread_cond_signal(ptr %cond)
  %woken1 = add i64 %woken, 1
  %more = icmp ult i64 %woken1, %slots
  br i1 %more, label %wake, label %woke_all
woke_all:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %run
run:
  call void @__gpuc_worker(ptr %ctl, i64 0)
  %donep = {_control_field("done")}
  br label %wait
wait:
  %done = load atomic i64, ptr %donep acquire, align 8
  %all = icmp uge i64 %done, %total
  br i1 %all, label %finished, label %yield
yield:
  call i32 @sched_yield()
  br label %wait
finished:
  br i1 %solo, label %out, label %withdraw
withdraw:
  call i32 @pthread_mutex_lock(ptr %mutex)
  %offeredp = {_pool_field("control")}
  %offered = load ptr, ptr %offeredp
  %mine = icmp eq ptr %offered, %ctl
  br i1 %mine, label %clear, label %unlock
clear:
  store ptr null, ptr %offeredp
  br label %unlock
unlock:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %out
out:
  call void @__gpuc_release(ptr %ctl)
  ret i32 0
}}
"""


def call_ir(kernel: str, entry: str, arg_types: list[str]) -> str:
    """`__gpuc_call_<kernel>(rec, args)`: the kernel's launch entry `entry`
    called on launch record `rec` with the argument slots `args` unpacked
    (8 bytes each), what `__gpuc_worker` calls for each chunk it claims."""
    loads: list[str] = []
    call_args = ["ptr %rec"]
    for i, ty in enumerate(arg_types):
        slot = f"%s{i}"
        loads.append(f"  {slot} = getelementptr i8, ptr %args, i64 {i * 8}")
        if ty == "i1":  # stored as a byte by the host
            loads.append(f"  %b{i} = load i8, ptr {slot}")
            loads.append(f"  %a{i} = trunc i8 %b{i} to i1")
        else:
            loads.append(f"  %a{i} = load {ty}, ptr {slot}")
        call_args.append(f"{ty} %a{i}")
    return f"""
declare void @"{entry}"({", ".join(["ptr", *arg_types])})

define void @"__gpuc_call_{kernel}"(ptr %rec, ptr %args) {{
entry:
{chr(10).join(loads)}
  call void @"{entry}"({", ".join(call_args)})
  ret void
}}
"""


class Pool:
    """The process's parked worker threads and the JIT code they run."""

    def __init__(self, llvm: Any) -> None:
        triple = llvm.get_process_triple()
        module = llvm.parse_assembly(f'target triple = "{triple}"\n' + POOL_IR)
        module.verify()
        machine = llvm.Target.from_triple(triple).create_target_machine(jit=True)
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.buffer = np.zeros(POOL_BYTES + ALIGN, np.uint8)
        self.at = int(self.buffer.ctypes.data) + (-self.buffer.ctypes.data % ALIGN)
        self._grow = ctypes.CFUNCTYPE(
            ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64
        )(self._engine.get_function_address("__gpuc_pool_grow"))
        self._stop = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(
            self._engine.get_function_address("__gpuc_pool_stop")
        )
        self.run = ctypes.CFUNCTYPE(
            ctypes.c_int32,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_int64,
            ctypes.c_int64,
        )(self._engine.get_function_address("__gpuc_run"))
        """`run(pool.at, call, records, n, args, stride, total, chunk)`: 0, or
        an errno (nothing ran). Worker i reads its argument slots at
        `args + i * stride` (stride 0: one row for all)."""
        self.threads = 0
        self.pid = os.getpid()
        self._lock = threading.Lock()

    def grow(self, threads: int) -> int:
        """Start threads until the pool has `threads` (fewer if the system
        refuses one: a launch then runs on the threads there are); returns
        how many it has."""
        threads = min(threads, MAX_WORKERS - 1)
        if self.threads < threads:
            with self._lock:
                if self.threads < threads:
                    self.threads = int(self._grow(self.at, threads, THREAD_STACK_BYTES))
        return self.threads

    def stop(self) -> None:
        """Wake and join every thread (at exit, before the JIT code goes)."""
        with self._lock:
            self._stop(self.at)
            self.threads = 0


_pool: Pool | None = None
_pool_lock = threading.Lock()


def pool(llvm: Any) -> Pool:
    """The process's pool (a new one in a forked child, whose copy of the
    parent's has no threads and maybe a mutex held by one)."""
    global _pool
    found = _pool
    if found is not None and found.pid == os.getpid():
        return found
    with _pool_lock:
        if _pool is None or _pool.pid != os.getpid():
            if _pool is None:
                atexit.register(_stop_at_exit)
            _pool = Pool(llvm)
        return _pool


def _stop_at_exit() -> None:
    """Join this process's pool threads before the interpreter (and the JIT
    code they wait in) goes; a forked child, which inherits this handler but
    not the threads, leaves its parent's pool alone."""
    found = _pool
    if found is not None and found.pid == os.getpid():
        found.stop()
